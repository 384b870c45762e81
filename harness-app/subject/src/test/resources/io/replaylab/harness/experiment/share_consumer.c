/*
 * A share-group (KIP-932) inbox consumer in C on librdkafka's share consumer (2.15, preview) and SQLite,
 * written for replay-lab's tests: nothing of replay-lab inside it but the processing log's line format.
 *
 * Per record, in ONE SQLite transaction: the message id into the inbox (INSERT OR IGNORE) and, only when
 * that row is new, the effect into the ledger; a record that is not a payment is quarantined instead.
 * THEN rd_kafka_share_acknowledge_type(ACCEPT) and rd_kafka_share_commit_sync(): an acknowledgement the
 * broker refuses (the record's lock expired and it is another member's now) is logged "ack-rejected" with
 * the broker's error, never fatal: the effect is in the DB and the redelivery meets its inbox row.
 *
 * Twins by environment: NO_INBOX=1 writes the ledger row for every delivery (a second effect on a
 * redelivery); QUARANTINE_ACK=REJECT|RELEASE acknowledges a quarantined record so instead of ACCEPT;
 * ACK_FIRST=1 acknowledges ACCEPT (and commits) BEFORE the DB transaction (a crash between loses the record).
 *
 * Args: BOOTSTRAP TOPIC GROUP DB NAMESPACE INSTANCE PROCESSING_LOG
 * Target query: SELECT message_id, amount FROM c_ledger WHERE ns = {namespace}
 * Build: gcc -O2 -o share_consumer share_consumer.c -I$RDK/include -L$RDK/lib -Wl,-rpath,$RDK/lib -lrdkafka -lsqlite3
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>
#include <sqlite3.h>

static volatile sig_atomic_t stop;

static void on_term(int sig) {
    (void)sig;
    stop = 1;
}

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fatal: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

/* ---- a growing string, for JSON lines ---- */
typedef struct {
    char *p;
    size_t n, cap;
} buf_t;

static void put(buf_t *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            die("out of memory");
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void puts_(buf_t *b, const char *s) { put(b, s, strlen(s)); }

static void putf(buf_t *b, const char *fmt, ...) {
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* A JSON string literal, or null. */
static void put_json(buf_t *b, const char *s) {
    if (!s) {
        puts_(b, "null");
        return;
    }
    puts_(b, "\"");
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\') {
            char e[2] = {'\\', (char)*c};
            put(b, e, 2);
        } else if (*c < 0x20) {
            putf(b, "\\u%04x", *c);
        } else {
            put(b, (const char *)c, 1);
        }
    }
    puts_(b, "\"");
}

/* ---- the payment: {"id": "...", "account": "...", "amount": N}, flat; anything else is malformed ---- */
typedef struct {
    char id[256];
    char account[256];
    long long amount;
} payment_t;

static const char *skip_ws(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* A JSON string at p (no escapes other than \" and \\ kept as is); the position after it, or NULL. */
static const char *read_string(const char *p, const char *end, char *out, size_t cap) {
    if (p >= end || *p != '"')
        return NULL;
    size_t n = 0;
    for (p++; p < end && *p != '"'; p++) {
        if (*p == '\\' && p + 1 < end)
            p++;
        if (n + 1 >= cap)
            return NULL;
        out[n++] = *p;
    }
    if (p >= end)
        return NULL;
    out[n] = 0;
    return p + 1;
}

/* 0 and the payment, or -1 and the reason. */
static int parse_payment(const char *v, size_t len, payment_t *pay, const char **reason) {
    const char *p = v, *end = v + len;
    int have_id = 0, have_account = 0, have_amount = 0;
    if (!v) {
        *reason = "null value";
        return -1;
    }
    p = skip_ws(p, end);
    if (p >= end || *p != '{') {
        *reason = "not a JSON object";
        return -1;
    }
    p = skip_ws(p + 1, end);
    while (p < end && *p != '}') {
        char key[64];
        if (!(p = read_string(p, end, key, sizeof key))) {
            *reason = "not JSON: a key";
            return -1;
        }
        p = skip_ws(p, end);
        if (p >= end || *p != ':') {
            *reason = "not JSON: no ':'";
            return -1;
        }
        p = skip_ws(p + 1, end);
        if (p < end && *p == '"') {
            char val[256];
            if (!(p = read_string(p, end, val, sizeof val))) {
                *reason = "not JSON: a string value";
                return -1;
            }
            if (!strcmp(key, "id")) {
                snprintf(pay->id, sizeof pay->id, "%s", val);
                have_id = val[0] != 0;
            } else if (!strcmp(key, "account")) {
                snprintf(pay->account, sizeof pay->account, "%s", val);
                have_account = 1;
            }
        } else {
            const char *start = p;
            while (p < end && *p != ',' && *p != '}' && *p != ' ')
                p++;
            if (!strcmp(key, "amount")) {
                char num[32];
                size_t n = (size_t)(p - start);
                char *stop_at;
                if (n == 0 || n >= sizeof num) {
                    *reason = "non-integer amount";
                    return -1;
                }
                memcpy(num, start, n);
                num[n] = 0;
                errno = 0;
                pay->amount = strtoll(num, &stop_at, 10);
                if (*stop_at || errno) {
                    *reason = "non-integer amount";
                    return -1;
                }
                have_amount = 1;
            }
        }
        p = skip_ws(p, end);
        if (p < end && *p == ',')
            p = skip_ws(p + 1, end);
    }
    if (p >= end) {
        *reason = "not JSON: unterminated object";
        return -1;
    }
    if (!have_id) {
        *reason = "missing id";
        return -1;
    }
    if (!have_account) {
        *reason = "missing account";
        return -1;
    }
    if (!have_amount) {
        *reason = "non-integer amount";
        return -1;
    }
    return 0;
}

/* ---- the database ---- */
typedef struct {
    sqlite3 *db;
    const char *ns, *instance;
    int no_inbox;
} store_t;

static void exec_or_die(sqlite3 *db, const char *sql) {
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
        die("%s: %s", sql, err ? err : sqlite3_errmsg(db));
}

static void store_open(store_t *s, const char *path) {
    if (sqlite3_open(path, &s->db) != SQLITE_OK)
        die("cannot open %s: %s", path, sqlite3_errmsg(s->db));
    sqlite3_busy_timeout(s->db, 10000);
    exec_or_die(s->db, "PRAGMA journal_mode=WAL");
    exec_or_die(s->db, "PRAGMA synchronous=FULL");
    exec_or_die(s->db, "CREATE TABLE IF NOT EXISTS c_inbox (ns TEXT NOT NULL, message_id TEXT NOT NULL, PRIMARY KEY (ns, message_id))");
    exec_or_die(s->db, "CREATE TABLE IF NOT EXISTS c_ledger (ns TEXT NOT NULL, message_id TEXT NOT NULL, account TEXT NOT NULL, "
                       "amount INTEGER NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL, \"offset\" INTEGER NOT NULL, "
                       "instance TEXT NOT NULL)");
    exec_or_die(s->db, "CREATE TABLE IF NOT EXISTS c_quarantine (ns TEXT NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL, "
                       "\"offset\" INTEGER NOT NULL, reason TEXT NOT NULL, raw TEXT, PRIMARY KEY (ns, topic, partition, \"offset\"))");
}

/* One statement with text/int64 parameters ('s' or 'l' per parameter); the rows it changed, or -1 (rc in *rc). */
static int run(sqlite3 *db, int *rc, const char *sql, const char *types, ...) {
    sqlite3_stmt *st;
    va_list ap;
    if ((*rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL)) != SQLITE_OK)
        return -1;
    va_start(ap, types);
    for (int i = 0; types[i]; i++) {
        if (types[i] == 's') {
            const char *v = va_arg(ap, const char *);
            if (v)
                sqlite3_bind_text(st, i + 1, v, -1, SQLITE_TRANSIENT);
            else
                sqlite3_bind_null(st, i + 1);
        } else {
            sqlite3_bind_int64(st, i + 1, va_arg(ap, long long));
        }
    }
    va_end(ap);
    *rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (*rc != SQLITE_DONE)
        return -1;
    *rc = SQLITE_OK;
    return sqlite3_changes(db);
}

typedef enum { APPLIED, DUPLICATE, QUARANTINED } result_t;
static const char *RESULT_NAMES[] = {"applied", "duplicate", "quarantined"};

/*
 * One transaction: inbox row and (when new, or always without the inbox) the effect; or the quarantine row.
 * A BUSY/LOCKED one (another instance holds the write lock past the busy timeout) is rolled back and tried again.
 */
static result_t store_handle(store_t *s, const rd_kafka_message_t *m, const payment_t *pay, const char *reason) {
    const char *topic = rd_kafka_topic_name(m->rkt);
    for (int attempt = 0;; attempt++) {
        int rc = SQLITE_OK;
        result_t result = QUARANTINED;
        char *err = NULL;
        if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, &err) != SQLITE_OK) {
            rc = sqlite3_errcode(s->db);
            sqlite3_free(err);
        } else if (!pay) {
            run(s->db, &rc, "INSERT OR IGNORE INTO c_quarantine (ns, topic, partition, \"offset\", reason) VALUES (?,?,?,?,?)", "sslls", s->ns, topic,
                (long long)m->partition, (long long)m->offset, reason);
            /* raw kept apart: it may hold any bytes */
            if (rc == SQLITE_OK && m->payload) {
                sqlite3_stmt *st;
                if ((rc = sqlite3_prepare_v2(s->db, "UPDATE c_quarantine SET raw = ? WHERE ns = ? AND topic = ? AND partition = ? "
                                             "AND \"offset\" = ?", -1, &st, NULL)) == SQLITE_OK) {
                    sqlite3_bind_text(st, 1, m->payload, (int)m->len, SQLITE_TRANSIENT);
                    sqlite3_bind_text(st, 2, s->ns, -1, SQLITE_TRANSIENT);
                    sqlite3_bind_text(st, 3, topic, -1, SQLITE_TRANSIENT);
                    sqlite3_bind_int64(st, 4, m->partition);
                    sqlite3_bind_int64(st, 5, m->offset);
                    rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(s->db);
                    sqlite3_finalize(st);
                }
            }
        } else {
            int fresh = run(s->db, &rc, "INSERT OR IGNORE INTO c_inbox VALUES (?,?)", "ss", s->ns, pay->id);
            if (rc == SQLITE_OK) {
                result = fresh == 1 ? APPLIED : DUPLICATE;
                if (fresh == 1 || s->no_inbox) {
                    run(s->db, &rc, "INSERT INTO c_ledger VALUES (?,?,?,?,?,?,?,?)", "ssslslls", s->ns, pay->id, pay->account,
                        pay->amount, topic, (long long)m->partition, (long long)m->offset, s->instance);
                    result = APPLIED; /* without the inbox a redelivery is applied again */
                }
            }
        }
        if (rc == SQLITE_OK && sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
            return result;
        if (rc == SQLITE_OK)
            rc = sqlite3_errcode(s->db);
        if (!sqlite3_get_autocommit(s->db))
            sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        if ((rc & 0xFF) != SQLITE_BUSY && (rc & 0xFF) != SQLITE_LOCKED)
            die("the transaction for %s-%d@%lld failed: %s", topic, (int)m->partition, (long long)m->offset, sqlite3_errstr(rc));
        if (attempt >= 30)
            die("the database stayed locked");
        fprintf(stdout, "db busy, retrying: %s\n", sqlite3_errstr(rc));
        fflush(stdout);
        usleep(200000);
    }
}

/* ---- the processing log: one JSON object per line, written whole ---- */
static FILE *plog;

static void line_start(buf_t *b, const char *instance, const rd_kafka_message_t *m) {
    char ts[64];
    struct timespec now;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);
    size_t n = strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(ts + n, sizeof ts - n, ".%03ldZ", now.tv_nsec / 1000000);
    b->n = 0;
    puts_(b, "{\"time\":");
    put_json(b, ts);
    puts_(b, ",\"instance\":");
    put_json(b, instance);
    puts_(b, ",\"topic\":");
    put_json(b, rd_kafka_topic_name(m->rkt));
    putf(b, ",\"partition\":%d,\"offset\":%lld", (int)m->partition, (long long)m->offset);
    int16_t count = rd_kafka_message_delivery_count(m);
    if (count > 0)
        putf(b, ",\"deliveryCount\":%d", (int)count);
}

static void line_end(buf_t *b) {
    puts_(b, "}\n");
    fwrite(b->p, 1, b->n, plog);
    fflush(plog); /* the lab reads the log while this instance runs (a held one has already said what it applied) */
}

static const char *ACK_NAMES[] = {"?", "ACCEPT", "RELEASE", "REJECT"};

/*
 * Acknowledges the record and commits synchronously; its partition's answer goes to the processing log:
 * acknowledged, ack-rejected (the broker's or the client's error), or ack-unconfirmed. 1 when confirmed.
 */
static int acknowledge(rd_kafka_share_t *c, const rd_kafka_message_t *m, rd_kafka_share_AcknowledgeType_t type, buf_t *b,
                       const char *instance, const char *id) {
    const char *result = "acknowledged";
    rd_kafka_resp_err_t refusal = RD_KAFKA_RESP_ERR_NO_ERROR;
    char message[512] = "";
    rd_kafka_resp_err_t err = rd_kafka_share_acknowledge_type(c, m, type);
    if (err) {
        result = "ack-rejected";
        refusal = err;
        snprintf(message, sizeof message, "acknowledge: %s", rd_kafka_err2str(err));
    } else {
        rd_kafka_topic_partition_list_t *parts = NULL;
        /* long enough to outlast a hold on the wire: the answer to a stale acknowledgement is what the lab wants to see */
        rd_kafka_error_t *e = rd_kafka_share_commit_sync(c, 60000, &parts);
        if (e) {
            result = "ack-rejected";
            refusal = rd_kafka_error_code(e);
            snprintf(message, sizeof message, "commit_sync: %s", rd_kafka_error_string(e));
            rd_kafka_error_destroy(e);
        } else {
            rd_kafka_topic_partition_t *p =
                parts ? rd_kafka_topic_partition_list_find(parts, rd_kafka_topic_name(m->rkt), m->partition) : NULL;
            if (!p) {
                result = "ack-unconfirmed"; /* no acknowledgement was pending for the partition: it went out earlier, or never */
            } else if (p->err == RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT || p->err == RD_KAFKA_RESP_ERR__TIMED_OUT) {
                result = "ack-unconfirmed";
                refusal = p->err;
                snprintf(message, sizeof message, "%s", rd_kafka_err2str(p->err));
            } else if (p->err) {
                result = "ack-rejected";
                refusal = p->err;
                snprintf(message, sizeof message, "%s", rd_kafka_err2str(p->err));
            }
        }
        if (parts)
            rd_kafka_topic_partition_list_destroy(parts);
    }
    line_start(b, instance, m);
    puts_(b, ",\"id\":");
    put_json(b, id);
    puts_(b, ",\"ack\":");
    put_json(b, ACK_NAMES[type]);
    puts_(b, ",\"result\":");
    put_json(b, result);
    if (refusal) {
        puts_(b, ",\"exception\":");
        put_json(b, rd_kafka_err2name(refusal));
        puts_(b, ",\"message\":");
        put_json(b, message);
        fprintf(stderr, "acknowledgement of %s-%d@%lld %s: %s %s\n", rd_kafka_topic_name(m->rkt), (int)m->partition,
                (long long)m->offset, result, rd_kafka_err2name(refusal), message);
    }
    line_end(b);
    return !strcmp(result, "acknowledged");
}

int main(int argc, char **argv) {
    if (argc != 8)
        die("usage: share_consumer BOOTSTRAP TOPIC GROUP DB NAMESPACE INSTANCE PROCESSING_LOG (got %d arguments)", argc - 1);
    const char *bootstrap = argv[1], *topic = argv[2], *group = argv[3], *dbpath = argv[4], *ns = argv[5], *instance = argv[6],
               *logpath = argv[7];
    const char *no_inbox = getenv("NO_INBOX"), *qack = getenv("QUARANTINE_ACK"), *ack_first_env = getenv("ACK_FIRST");
    int ack_first = ack_first_env && !strcmp(ack_first_env, "1");
    rd_kafka_share_AcknowledgeType_t quarantined_ack = RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_ACCEPT;
    if (qack && !strcmp(qack, "REJECT"))
        quarantined_ack = RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_REJECT;
    else if (qack && !strcmp(qack, "RELEASE"))
        quarantined_ack = RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_RELEASE;
    else if (qack && *qack && strcmp(qack, "ACCEPT"))
        die("QUARANTINE_ACK must be ACCEPT, REJECT or RELEASE, was %s", qack);

    struct sigaction sa = {0};
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    store_t store = {.ns = ns, .instance = instance, .no_inbox = no_inbox && !strcmp(no_inbox, "1")};
    store_open(&store, dbpath);
    if (!(plog = fopen(logpath, "a")))
        die("cannot open %s: %s", logpath, strerror(errno));

    char errstr[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    const char *settings[][2] = {
        {"bootstrap.servers", bootstrap}, {"group.id", group}, {"client.id", instance},
        {"share.acknowledgement.mode", "explicit"}, /* nothing is acknowledged that this code did not acknowledge */
        {"max.poll.records", "1"},                  /* best effort in this preview: the broker may still hand out a whole batch */
    };
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++)
        if (rd_kafka_conf_set(conf, settings[i][0], settings[i][1], errstr, sizeof errstr) != RD_KAFKA_CONF_OK)
            die("%s: %s", settings[i][0], errstr);
    rd_kafka_share_t *c = rd_kafka_share_consumer_new(conf, errstr, sizeof errstr);
    if (!c)
        die("rd_kafka_share_consumer_new: %s", errstr);
    rd_kafka_topic_partition_list_t *topics = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(topics, topic, RD_KAFKA_PARTITION_UA);
    rd_kafka_resp_err_t err = rd_kafka_share_subscribe(c, topics);
    rd_kafka_topic_partition_list_destroy(topics);
    if (err)
        die("rd_kafka_share_subscribe: %s", rd_kafka_err2str(err));
    printf("%s: librdkafka %s, share group %s, topic %s%s\n", instance, rd_kafka_version_str(), group, topic,
           store.no_inbox ? " (NO_INBOX: every delivery applied)" : "");
    fflush(stdout);

    long counts[3] = {0}, refused = 0;
    buf_t b = {0};
    while (!stop) {
        rd_kafka_messages_t *batch = NULL;
        rd_kafka_error_t *e = rd_kafka_share_poll(c, 500, &batch);
        if (e) {
            fprintf(stderr, "poll: %s\n", rd_kafka_error_string(e));
            if (rd_kafka_error_is_fatal(e))
                die("fatal consumer error: %s", rd_kafka_error_string(e));
            rd_kafka_error_destroy(e);
            continue;
        }
        size_t n = rd_kafka_messages_count(batch);
        for (size_t i = 0; i < n; i++) {
            rd_kafka_message_t *m = rd_kafka_messages_get(batch, i);
            if (m->err) {
                /* a record-level error: the client has acknowledged it itself (REJECT or RELEASE by the error's kind) */
                fprintf(stderr, "record error at %s-%d@%lld: %s\n", m->rkt ? rd_kafka_topic_name(m->rkt) : "?", (int)m->partition,
                        (long long)m->offset, rd_kafka_message_errstr(m));
                continue;
            }
            payment_t pay;
            const char *reason = NULL;
            int ok = parse_payment(m->payload, m->len, &pay, &reason) == 0;
            if (ack_first && !acknowledge(c, m, RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_ACCEPT, &b, instance, ok ? pay.id : NULL))
                refused++;
            result_t r = store_handle(&store, m, ok ? &pay : NULL, reason);
            counts[r]++;
            line_start(&b, instance, m);
            puts_(&b, ",\"id\":");
            put_json(&b, ok ? pay.id : NULL);
            puts_(&b, ",\"result\":");
            put_json(&b, RESULT_NAMES[r]);
            if (reason) {
                puts_(&b, ",\"reason\":");
                put_json(&b, reason);
            }
            line_end(&b);
            if (!ack_first && !acknowledge(c, m, r == QUARANTINED ? quarantined_ack : RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_ACCEPT, &b, instance,
                                           ok ? pay.id : NULL))
                refused++;
            if (stop)
                break; /* the rest of the batch is not acknowledged: leaving the group releases it */
        }
        rd_kafka_messages_destroy(batch);
    }
    printf("%s: applied %ld, duplicate %ld, quarantined %ld, not acknowledged %ld\n", instance, counts[APPLIED], counts[DUPLICATE],
           counts[QUARANTINED], refused);
    fflush(stdout);
    rd_kafka_error_t *e = rd_kafka_share_consumer_close(c);
    if (e) {
        fprintf(stderr, "close: %s\n", rd_kafka_error_string(e));
        rd_kafka_error_destroy(e);
    }
    rd_kafka_share_destroy(c);
    sqlite3_close(store.db);
    fclose(plog);
    free(b.p);
    return 0;
}
