package io.replaylab.barrier.pg;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import io.replaylab.barrier.Arrival;
import io.replaylab.barrier.CallOutcome;
import io.replaylab.barrier.Injector;
import io.replaylab.barrier.PgPoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's session through the proxy: a thread per direction. The client's side reads the
 * startup (declining TLS and GSS encryption), then each message, holding a {@code COMMIT} at an armed
 * {@link PgPoint.Edge#REQUEST}; the server's side holds the answer to one at an armed
 * {@link PgPoint.Edge#ANSWER} and tells a held commit's barrier what became of it.
 */
final class PgConnection {
    private static final Logger log = LoggerFactory.getLogger(PgConnection.class);
    private static final int SSL_REQUEST = 80877103;
    private static final int GSS_REQUEST = 80877104;
    private static final int CANCEL_REQUEST = 80877102;
    /** COMMIT, END, COMMIT WORK/TRANSACTION, with an optional semicolon: a transaction's end that applies it. */
    private static final Pattern COMMIT = Pattern.compile("(?is)\\s*(commit|end)(\\s+(work|transaction))?\\s*;?\\s*");

    private final int id;
    private final Socket client;
    private final Socket server;
    private final PgProxy proxy;
    /** The COMMITs sent and not answered yet, oldest first; each with the hold that held it, if one did. Guarded by itself. */
    private final Deque<Sent> commits = new ArrayDeque<>();
    /** The client's prepared statements' texts by name, and its portals' statements ("" is the unnamed one); client side only. */
    private final Map<String, String> statements = new java.util.HashMap<>();
    private final Map<String, String> portals = new java.util.HashMap<>();
    private volatile String database = "";
    private volatile String user = "";
    private volatile String application = "";
    /** The barrier holding this session now (its COMMIT or the answer to it), or null. */
    private volatile io.replaylab.barrier.Barrier holding;
    /** Whose session this is: the proxy's owner of its client port, else its application name. */
    private volatile String owner = "";
    private volatile boolean ownedByPort;
    /** The server's last transaction status (ReadyForQuery): 'I' idle, 'T' in a transaction, 'E' in a failed one. */
    private volatile char status = 'I';
    /** The current transaction as the witness will see it: what it ran, its first error, its last command tag. Guarded by itself. */
    private final java.util.List<String> running = new java.util.ArrayList<>();
    private String firstError = "";
    private String lastTag = "";
    private boolean witnessed;
    /** The portals' bound parameters, as the witness shows them; client side only. */
    private final Map<String, String> portalParameters = new java.util.HashMap<>();
    /** Client side only: an injected statement took the place of the client's batch up to its Sync, which is dropped. */
    private boolean swallowToSync;
    /** The client began a transaction, or ended one, since the server's last ReadyForQuery (pipelined: the server has not said so yet). */
    private volatile boolean began;
    private volatile boolean ended;
    /** A statement fault sent, waiting for the server's error to confirm it, and the statement it took the place of. */
    private volatile ArmedDbFault statementFault;
    private volatile String statementHit;
    /** Guards what goes to the client: the server's side and a termination never interleave. */
    private final Object toClientLock = new Object();

    /** One message after the startup: its type byte and its body (the length is the body's plus 4). */
    private record Message(int type, byte[] body) {
        /** The next message, or null at the end of the stream. */
        static Message read(DataInputStream in) throws IOException {
            int type = in.read();
            if (type < 0) {
                return null;
            }
            int length = in.readInt();
            byte[] body = in.readNBytes(length - 4);
            return body.length < length - 4 ? null : new Message(type, body);
        }

        /** Passes it on; flushed once nothing more has come from {@code from}, so that what came goes on before that side waits. */
        void writeTo(DataOutputStream out, DataInputStream from) throws IOException {
            out.write(type);
            out.writeInt(body.length + 4);
            out.write(body);
            if (from.available() == 0) {
                out.flush();
            }
        }
    }

    /** A COMMIT on its way to the server: the statement, the barrier that held it and the fault that waits for its answer (null: none). */
    private record Sent(String statement, PgHold held, ArmedDbFault fault) {
    }

    PgConnection(int id, Socket client, Socket server, PgProxy proxy) {
        this.id = id;
        this.client = client;
        this.server = server;
        this.proxy = proxy;
    }

    void start() {
        Thread up = new Thread(this::fromClient, "pg-proxy-" + id + "-client");
        Thread down = new Thread(this::fromServer, "pg-proxy-" + id + "-server");
        up.setDaemon(true);
        down.setDaemon(true);
        up.start();
        down.start();
    }

    private void fromClient() {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(client.getInputStream()));
             DataOutputStream toServer = new DataOutputStream(new BufferedOutputStream(server.getOutputStream()))) {
            if (!startup(in, toServer)) {
                return;
            }
            for (Message m = Message.read(in); m != null; m = Message.read(in)) {
                if (swallowToSync) { // the rest of a statement whose place an injected one took: its Sync is the end
                    swallowToSync = m.type() != 'S'; // the injected query's ReadyForQuery answers that Sync
                    continue;
                }
                String statement = statement(m.type(), m.body());
                witness(m.type(), m.body(), statement);
                if (statement != null && BEGIN.matcher(statement).matches()) {
                    began = true;
                }
                if (statement != null && COMMIT.matcher(statement).matches()) {
                    toServer.flush(); // the transaction's statements reach the server; its COMMIT may wait
                    boolean open = inTransaction();
                    ended = true;
                    ArmedDbFault fault = open ? proxy.takeFault(owner, true) : null; // a COMMIT with no transaction commits nothing
                    if (fault != null && fault.fault().effect() == DbFault.Effect.TERMINATE) {
                        terminate(fault, statement);
                        return;
                    }
                    PgHold held = fault == null ? hold(PgPoint.Edge.REQUEST, statement) : null;
                    if (held != null && clientGone(in)) { // killed while held: a dead client's COMMIT never reaches the server
                        log.info("{}: the client went while its COMMIT was held; the COMMIT is dropped", this);
                        return;
                    }
                    synchronized (commits) {
                        commits.add(new Sent(statement.trim(), held, fault));
                    }
                    if (fault != null && fault.fault().effect() == DbFault.Effect.ERROR) {
                        query("ROLLBACK").writeTo(toServer, in); // its answer becomes the error (answered)
                        toServer.flush();
                        swallowToSync = m.type() != 'Q';
                        continue;
                    }
                } else if (statement != null && ROLLBACK.matcher(statement).matches()) {
                    ended = true;
                } else if (proxy.faultsArmed() && inTransaction() && (m.type() == 'Q' || m.type() == 'B') && !WitnessedTransaction.isControl(text(m))) {
                    // at a Bind, not its Parse: the Bind carries the values (a record's id) the witness names the statement by
                    ArmedDbFault fault = proxy.takeFault(owner, false);
                    if (fault != null) {
                        String raise = "DO $$BEGIN RAISE EXCEPTION '" + PgErrors.message(fault.fault().sqlState()).replace("'", "''") + "' USING ERRCODE = '"
                                + fault.fault().sqlState() + "'; END$$";
                        if (m.type() != 'Q') { // the statement it takes the place of, for the witness (a Query's is there already)
                            witnessed(text(m) + (m.type() == 'B' ? " " + PgErrors.parameters(m.body(), PgWitness.MAX_TEXT) : ""));
                        }
                        statementHit = text(m).trim();
                        statementFault = fault; // before the server can answer
                        query(raise).writeTo(toServer, in);
                        toServer.flush();
                        swallowToSync = m.type() != 'Q'; // the rest of the client's batch, up to its Sync
                        continue;
                    }
                }
                m.writeTo(toServer, in);
            }
        } catch (IOException e) {
            log.debug("{}: the client's side ended: {}", this, e.toString());
        } finally {
            close();
        }
    }

    /** The startup: encryption requests answered "no", a cancel passed on, the startup message's parameters read. False: nothing follows. */
    private boolean startup(DataInputStream in, DataOutputStream toServer) throws IOException {
        while (true) {
            int length = in.readInt();
            if (length < 8 || length > 10_000) {
                log.warn("{}: a startup packet of {} bytes is no PostgreSQL client's; closing", this, length);
                return false;
            }
            byte[] rest = in.readNBytes(length - 4);
            int code = ((rest[0] & 0xff) << 24) | ((rest[1] & 0xff) << 16) | ((rest[2] & 0xff) << 8) | (rest[3] & 0xff);
            if (code == SSL_REQUEST || code == GSS_REQUEST) {
                proxy.declinedEncryption();
                client.getOutputStream().write('N');
                client.getOutputStream().flush();
                continue;
            }
            if (code != CANCEL_REQUEST) { // whose the session is, before the server can say anything of it
                Map<String, String> params = parameters(rest);
                database = params.getOrDefault("database", params.getOrDefault("user", ""));
                user = params.getOrDefault("user", "");
                application = params.getOrDefault("application_name", "");
                String byPort = proxy.ownerOf(client.getPort());
                ownedByPort = byPort != null;
                owner = ownedByPort ? byPort : application;
            }
            toServer.writeInt(length);
            toServer.write(rest);
            toServer.flush();
            return code != CANCEL_REQUEST;
        }
    }

    private static Map<String, String> parameters(byte[] startup) {
        Map<String, String> out = new TreeMap<>();
        int i = 4;
        while (i < startup.length && startup[i] != 0) {
            int k = i;
            while (startup[i] != 0) {
                i++;
            }
            String key = new String(startup, k, i - k, StandardCharsets.UTF_8);
            int v = ++i;
            while (i < startup.length && startup[i] != 0) {
                i++;
            }
            out.put(key, new String(startup, v, i - v, StandardCharsets.UTF_8));
            i++;
        }
        return out;
    }

    /**
     * The statement a message runs: a simple Query's text, or, in the extended protocol, the text of the statement an
     * Execute's portal was bound to (a client may prepare COMMIT once on the server and then only bind and execute it, as
     * pgjdbc does after a few); null for any other message. Parse and Bind are remembered on the way (client side only).
     */
    private String statement(int type, byte[] body) {
        return switch (type) {
            case 'Q' -> cString(body, 0);
            case 'P' -> {
                statements.put(cString(body, 0), second(body)); // a Parse names its statement, then its text
                yield null;
            }
            case 'B' -> {
                portals.put(cString(body, 0), second(body)); // a Bind names its portal, then its statement
                yield null;
            }
            case 'E' -> statements.get(portals.get(cString(body, 0)));
            default -> null;
        };
    }

    /** The second C string of a message's body: a Parse's text, a Bind's statement name. */
    private static String second(byte[] b) {
        return cString(b, cString(b, 0).getBytes(StandardCharsets.UTF_8).length + 1);
    }

    private static String cString(byte[] b, int from) {
        int end = from;
        while (end < b.length && b[end] != 0) {
            end++;
        }
        return new String(b, from, Math.max(0, end - from), StandardCharsets.UTF_8);
    }

    private static final Pattern BEGIN = Pattern.compile("(?is)\\s*(begin|start\\s+transaction)\\b.*");
    private static final Pattern ROLLBACK = Pattern.compile("(?is)\\s*(rollback|abort)(\\s+(work|transaction))?\\s*;?\\s*");

    /** A message's statement text as far as it has one: a Query's, a Parse's, a Bind's statement's; else empty. */
    private String text(Message m) {
        return switch (m.type()) {
            case 'Q' -> cString(m.body(), 0);
            case 'P' -> second(m.body());
            case 'B' -> statements.getOrDefault(second(m.body()), "");
            default -> "";
        };
    }

    /** What the current transaction has run so far, for a firing. */
    private java.util.List<String> ran() {
        synchronized (running) {
            return java.util.List.copyOf(running);
        }
    }

    /** A simple Query message. */
    private static Message query(String sql) {
        byte[] text = sql.getBytes(StandardCharsets.UTF_8);
        byte[] body = java.util.Arrays.copyOf(text, text.length + 1);
        return new Message('Q', body);
    }

    /** What the witness keeps of a client message: a Query's text; an Execute's statement and the parameters bound to its portal. */
    private void witness(int type, byte[] body, String executed) {
        String kept = null;
        if (type == 'Q') {
            kept = executed;
        } else if (type == 'B') {
            String portal = cString(body, 0);
            portalParameters.put(portal, PgErrors.parameters(body, PgWitness.MAX_TEXT));
        } else if (type == 'E' && executed != null) {
            String params = portalParameters.getOrDefault(cString(body, 0), "");
            kept = executed + (params.isEmpty() ? "" : " " + params);
        }
        if (kept != null) {
            witnessed(kept);
        }
    }

    private void witnessed(String kept) {
        synchronized (running) {
            if (running.size() < PgWitness.MAX_STATEMENTS) {
                running.add(kept.length() > PgWitness.MAX_TEXT ? kept.substring(0, PgWitness.MAX_TEXT) : kept);
            }
        }
    }

    /** Whether the session is inside a transaction block, as the server last said, and as the client has said since (BEGIN, COMMIT). */
    private boolean inTransaction() {
        return began || status != 'I' && !ended;
    }

    /**
     * After a held COMMIT is let go: whether the client closed its connection meanwhile (killed while held), read without taking
     * anything the client sent: a byte that came is put back.
     */
    private boolean clientGone(DataInputStream in) {
        int limit = 1 << 16;
        in.mark(limit);
        try {
            client.setSoTimeout(5);
            for (int n = 0; n < limit - 1; n++) { // what it sent before it went is read past, then put back
                if (in.read() < 0) {
                    return true;
                }
            }
            return false;
        } catch (java.net.SocketTimeoutException stillThere) {
            return false;
        } catch (IOException e) {
            return true;
        } finally {
            try {
                in.reset();
                client.setSoTimeout(0);
            } catch (IOException ignored) {
                // closed: the next read says so
            }
        }
    }

    /** The client is told FATAL (the fault's SQLSTATE) instead of its COMMIT reaching the server, and the connection closes: the server rolls back. */
    private void terminate(ArmedDbFault fault, String statement) throws IOException {
        byte[] error = PgErrors.response("FATAL", fault.fault().sqlState());
        synchronized (toClientLock) { // never inside a message the server's side is passing on
            DataOutputStream toClient = new DataOutputStream(client.getOutputStream());
            toClient.write('E');
            toClient.writeInt(error.length + 4);
            toClient.write(error);
            toClient.flush();
        }
        fault.fired(new DbFaultFiring(java.time.Instant.now(), owner, id, statement.trim(), "the client was told FATAL SQLSTATE "
                + fault.fault().sqlState() + " and the connection closed before the server saw the COMMIT: the server rolled the transaction back",
                ran()));
        close();
    }

    /**
     * Holds this connection's flow (the calling direction) at the first armed point of {@code edge} whose barrier takes this
     * session's arrival (its options' condition), if there is one; the hold that did.
     */
    private PgHold hold(PgPoint.Edge edge, String statement) {
        for (PgHold h : proxy.holds(edge, database)) {
            Map<String, String> context = new TreeMap<>();
            context.put("statement", statement.trim());
            context.put("database", database);
            context.put("user", user);
            context.put("application_name", application);
            context.put("owner", owner);
            context.put("connection", toString());
            context.put("client.port", Integer.toString(client.getPort())); // whose session: the port a process on this host holds
            Arrival a = new Arrival(h.barrier().point(), "session " + id + (application.isEmpty() ? "" : " (" + application + ")"), context, List.of(),
                    List.of(edge == PgPoint.Edge.REQUEST ? "COMMIT on " + this : "the answer to COMMIT on " + this), java.time.Instant.now(),
                    System.nanoTime());
            Injector injector = Injector.of(h.barrier());
            holding = h.barrier(); // before the arrival is seen: a client killed at once finds this session held (sever)
            if (!injector.reach(a)) {
                holding = null;
                continue;
            }
            proxy.taken(h);
            log.info("{}: {} held at {}", this, statement.trim(), h.barrier().point());
            try {
                injector.holdUntilReleased();
            } finally {
                holding = null;
            }
            return h;
        }
        return null;
    }

    private void fromServer() {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(server.getInputStream()));
             DataOutputStream toClient = new DataOutputStream(new BufferedOutputStream(client.getOutputStream()))) {
            for (Message m = Message.read(in); m != null; m = Message.read(in)) {
                if (m.type() == 'S' && "application_name".equals(cString(m.body(), 0))) { // set after the startup (pgjdbc's SET)
                    application = cString(m.body(), "application_name".length() + 1);
                    if (!ownedByPort) {
                        owner = application;
                    }
                }
                if (m.type() == 'Z' && m.body().length > 0) {
                    ended((char) m.body()[0]);
                }
                if (m.type() == 'E' && statementFault != null) { // the server raised it: the statement fault fired
                    ArmedDbFault f = statementFault;
                    statementFault = null;
                    String state = field(m.body(), 'C');
                    f.fired(new DbFaultFiring(java.time.Instant.now(), owner, id, statementHit, "a statement that raises SQLSTATE " + f.fault().sqlState()
                            + " ran in its place; the server answered SQLSTATE " + state + " and aborted the transaction", ran()));
                }
                if (m.type() == 'C' || m.type() == 'E') {
                    synchronized (running) {
                        if (m.type() == 'C') {
                            lastTag = cString(m.body(), 0);
                        } else if (firstError.isEmpty()) {
                            firstError = field(m.body(), 'C');
                        }
                    }
                    m = answered(m, toClient);
                    if (m == null) {
                        return; // the answer dropped and the connection closed (a lost answer)
                    }
                }
                synchronized (toClientLock) {
                    m.writeTo(toClient, in);
                }
            }
        } catch (IOException e) {
            log.debug("{}: the server's side ended: {}", this, e.toString());
        } finally {
            close();
        }
    }

    /**
     * A CommandComplete or an ErrorResponse: when it answers the oldest COMMIT sent, the commit's barrier (if one held it)
     * hears what became of it, a fault waiting for it fires, and an armed answer point holds the answer before the client
     * gets it. Returns what goes on to the client: the answer, the error a fault made of it, or null when a lost answer
     * closed the connection.
     */
    private Message answered(Message m, DataOutputStream toClient) throws IOException {
        int type = m.type();
        byte[] body = m.body();
        String tag = type == 'C' ? cString(body, 0) : null;
        boolean ends = type == 'E' || tag.startsWith("COMMIT") || tag.startsWith("ROLLBACK");
        Sent sent;
        synchronized (commits) {
            sent = ends ? commits.poll() : null;
        }
        if (sent == null) {
            return m;
        }
        String error = type == 'E' ? field(body, 'C') + " " + field(body, 'M') : null;
        if (sent.held() != null) {
            Injector injector = Injector.of(sent.held().barrier());
            injector.recordOutcome(error != null ? CallOutcome.rejected(sent.held().barrier().point(), "SQLSTATE " + field(body, 'C'), field(body, 'M'))
                    : tag.startsWith("ROLLBACK") ? CallOutcome.rejected(sent.held().barrier().point(), "ROLLBACK",
                            "the server rolled the transaction back (it had failed before the COMMIT)")
                    : CallOutcome.accepted(sent.held().barrier().point()));
        }
        ArmedDbFault fault = sent.fault();
        if (fault != null && fault.fault().effect() == DbFault.Effect.LOST_ANSWER) {
            String answer = error != null ? "answered " + error : tag.startsWith("ROLLBACK") ? "rolled the transaction back (it had failed before "
                    + "the COMMIT)" : "committed";
            java.util.List<String> ran = ran();
            ended('I'); // the witness knows what the client never learns
            fault.fired(new DbFaultFiring(java.time.Instant.now(), owner, id, sent.statement(), "the server " + answer + "; the answer was dropped "
                    + "and the connection closed", ran));
            close();
            return null;
        }
        if (fault != null) { // a commit error: the ROLLBACK sent in the COMMIT's place is answered with the fault's SQLSTATE
            synchronized (running) {
                firstError = fault.fault().sqlState();
            }
            fault.fired(new DbFaultFiring(java.time.Instant.now(), owner, id, sent.statement(), "the server rolled the transaction back in the "
                    + "COMMIT's place; the client was answered SQLSTATE " + fault.fault().sqlState(), ran()));
            return new Message('E', PgErrors.response("ERROR", fault.fault().sqlState()));
        }
        if (error == null && tag.startsWith("COMMIT")) {
            toClient.flush(); // what came before the answer reaches the client; the answer waits
            PgHold held = hold(PgPoint.Edge.ANSWER, sent.statement());
            if (held != null) {
                Injector.of(held.barrier()).recordOutcome(CallOutcome.accepted(held.barrier().point()));
            }
        }
        return m;
    }

    /**
     * The server's transaction status changed to {@code now}: back to idle, the transaction that ran (explicit, or one
     * statement on its own) ended, and the witness hears of it.
     */
    private void ended(char now) {
        status = now;
        began = false;
        ended = false;
        if (now != 'I') {
            return;
        }
        WitnessedTransaction t;
        synchronized (running) {
            if (running.isEmpty() && lastTag.isEmpty()) {
                return;
            }
            WitnessedTransaction.Outcome outcome = !firstError.isEmpty() ? WitnessedTransaction.Outcome.FAILED
                    : lastTag.startsWith("ROLLBACK") ? WitnessedTransaction.Outcome.ROLLED_BACK : WitnessedTransaction.Outcome.COMMITTED;
            t = new WitnessedTransaction(owner, id, java.time.Instant.now(), outcome, firstError, running);
            running.clear();
            firstError = "";
            lastTag = "";
        }
        proxy.witness().ended(t);
    }

    /** A field of an ErrorResponse ({@code C}: the SQLSTATE, {@code M}: the message); empty when absent. */
    private static String field(byte[] body, char code) {
        int i = 0;
        while (i < body.length && body[i] != 0) {
            char f = (char) body[i];
            int start = i + 1;
            int end = start;
            while (end < body.length && body[end] != 0) {
                end++;
            }
            if (f == code) {
                return new String(body, start, end - start, StandardCharsets.UTF_8);
            }
            i = end + 1;
        }
        return "";
    }

    /** Releases the barrier holding this session, if one does (the proxy closes). */
    void releaseHeld() {
        io.replaylab.barrier.Barrier b = holding;
        if (b != null && b.state() == io.replaylab.barrier.BarrierState.HELD) {
            try {
                b.release();
            } catch (RuntimeException movedMeanwhile) {
                // released meanwhile
            }
        }
    }

    /** Whether {@code b} holds this session now. */
    boolean heldBy(io.replaylab.barrier.Barrier b) {
        return holding == b;
    }

    void close() {
        WitnessedTransaction t = null;
        synchronized (running) {
            if (!witnessed && !running.isEmpty()) {
                boolean committing;
                synchronized (commits) {
                    committing = !commits.isEmpty();
                }
                // what the server said last decides: its COMMIT's answer (held, say), an error, or nothing yet
                WitnessedTransaction.Outcome outcome = !firstError.isEmpty() ? WitnessedTransaction.Outcome.FAILED
                        : lastTag.startsWith("COMMIT") ? WitnessedTransaction.Outcome.COMMITTED
                        : lastTag.startsWith("ROLLBACK") ? WitnessedTransaction.Outcome.ROLLED_BACK
                        : committing ? WitnessedTransaction.Outcome.AMBIGUOUS : WitnessedTransaction.Outcome.ABANDONED;
                t = new WitnessedTransaction(owner, id, java.time.Instant.now(), outcome, firstError, running);
                running.clear();
            }
            witnessed = true;
        }
        if (t != null) {
            proxy.witness().ended(t);
        }
        try {
            client.close();
        } catch (IOException ignored) {
            // closing
        }
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        proxy.ended(this);
    }

    @Override
    public String toString() {
        return "pg connection " + id + " (client port " + client.getPort() + ")";
    }
}
