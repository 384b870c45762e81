package io.replaylab.harness.experiment;

import io.replaylab.evidence.process.Platform;
import io.replaylab.evidence.process.Poll;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.replaylab.evidence.Check;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.SyntheticPayments;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.broker.LocalKafkaCluster;
import io.replaylab.oracle.Comparison;
import io.replaylab.oracle.Oracle;
import io.replaylab.oracle.SourceSpec;
import io.replaylab.oracle.TopicOracle;
import io.replaylab.oracle.TopicOracle.Isolation;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Experiment {@code durability} (R15's first half): on a 3-broker cluster of its own, the same
 * deterministic leader crash for two configurations, each on its own RF-3 topic. Both followers of
 * partition 0 are frozen (they stay in the ISR), a batch is produced, the leader is SIGKILLed, the
 * followers are thawed before the controller fences them, one is elected, the old leader restarts
 * on its data and the rest is produced. The oracle then counts the ACKNOWLEDGED records in the log,
 * and the reference subject drains the topic into the target. PASS: {@code safe} lost and
 * duplicated nothing while {@code unsafe} lost acknowledged records (the control shows the fault
 * bit; if it lost nothing the fault is not confirmed: NOT_RUN).
 */
final class DurabilityExperiment {
    static final String NAME = "durability";
    static final String[] REQUIREMENTS = {"R12", "R13", "R14", "R15"};
    static final int BROKERS = 3;
    /** Records per phase: before the fault, while the followers are frozen, after the recovery. */
    static final int BATCH = 100;

    private DurabilityExperiment() {
    }

    /** Producer and topic settings under test. */
    record Config(String name, String acks, boolean idempotence, int minInsyncReplicas, boolean uncleanLeaderElection) {
        static final Config SAFE = new Config("safe", "all", true, 2, false);
        static final Config UNSAFE = new Config("unsafe", "1", false, 1, true);

        Map<String, String> topicConfigs() {
            return Map.of("min.insync.replicas", Integer.toString(minInsyncReplicas), "unclean.leader.election.enable",
                    Boolean.toString(uncleanLeaderElection));
        }

        String describe() {
            return name + ": producer acks=" + acks + (idempotence ? " + idempotence" : ", no idempotence") + "; topic RF " + BROKERS
                    + ", min.insync.replicas=" + minInsyncReplicas + ", unclean leader election " + (uncleanLeaderElection ? "on" : "off");
        }
    }

    /** What one configuration showed: acknowledged records and how many of them the log lost or holds twice, and the target's verdict. */
    record Result(Config config, int produced, int acknowledged, List<String> lost, long duplicated, long inLog, Comparison target) {
    }

    static Outcome run(LabContext ctx, LabNamespace ns, ExperimentRecorder e) throws Exception {
        Experiments.environment(ctx, e, ns);
        e.limitation(Limitations.DURABILITY_ONE_SCHEDULE);
        if (!ctx.settings().source().isReference()) {
            // its producer is the experiment itself (acks and idempotence are what it compares): it writes the reference shape only
            return e.finish(Outcome.notRun("durability produces its own records in the reference shape ({\"id\",\"account\",\"amount\"}) to "
                    + "compare producer settings; the run's source (" + ctx.settings().source() + ") is not read there, so a consumer "
                    + "of another shape cannot be judged on them"));
        }
        Platform platform = ctx.settings().platform();
        if (!platform.canFreeze()) {
            return e.finish(Outcome.notRun("not available on " + platform.describe() + ": the fault freezes a follower broker, which needs "
                    + "POSIX signals (SIGSTOP, SIGCONT) and /proc to confirm it"));
        }
        if (ctx.settings().broker().bootstrap().isPresent()) {
            int n = brokersOf(ctx.kafka().bootstrap());
            return e.finish(Outcome.notRun(n < BROKERS ? "needs " + BROKERS + " brokers: the cluster at " + ctx.kafka().bootstrap() + " has " + n
                    : "replay-lab kills and freezes only brokers it starts: run durability without a bootstrap server (it starts a "
                            + BROKERS + "-node cluster of its own)"));
        }
        ctx.step("starting a local cluster (" + BROKERS + " brokers, one KRaft controller)");
        try (LocalKafkaCluster cluster = LocalKafkaCluster.custom().brokers(BROKERS).workDir(ctx.runDir().resolve("cluster")).build().start();
             KafkaOps ops = KafkaOps.connect(cluster.bootstrapServers())) {
            e.environment("cluster", cluster.bootstrapServers());
            ctx.subjects().watch(cluster.pid(LocalKafkaCluster.CONTROLLER_ID)); // a frozen follower never reads its pipe: the watchdog kills by pid
            cluster.brokerIds().forEach(id -> ctx.subjects().watch(cluster.pid(id)));
            ctx.kafka().witness().ifPresent(w -> e.limitation("durability's subjects connect to its own cluster directly: the run's wire witness does not "
                    + "see their commits (the experiment judges the records the cluster kept, not the commits)."));
            e.environment("pid.controller", cluster.pid(LocalKafkaCluster.CONTROLLER_ID) + " (node " + LocalKafkaCluster.CONTROLLER_ID + ")");
            for (int id : cluster.brokerIds()) {
                e.environment("pid.broker-" + id, cluster.pid(id) + " (node " + id + ", 127.0.0.1:" + cluster.port(id) + ")");
                e.artifact("cluster/broker-" + id + "/broker.log", "log of broker " + id);
            }
            e.artifact("cluster/controller/broker.log", "log of the KRaft controller");
            e.record(Source.here("harness"), new Payload.Note("cluster up: brokers " + cluster.brokerIds() + " at " + cluster.bootstrapServers()
                    + ", controller node " + LocalKafkaCluster.CONTROLLER_ID + "; " + rss(cluster)));
            Result safe = runConfig(ctx, e, cluster, ops, ns, Config.SAFE);
            Result unsafe = runConfig(ctx, e, cluster, ops, ns, Config.UNSAFE);
            e.environment("configuration safe", Config.SAFE.describe());
            e.environment("configuration unsafe", Config.UNSAFE.describe());
            e.record(Source.here("harness"), sideBySide(safe, unsafe));
            return Verdicts.durability(e, safe, unsafe);
        }
    }

    private static Result runConfig(LabContext ctx, ExperimentRecorder e, LocalKafkaCluster cluster, KafkaOps ops, LabNamespace ns, Config cfg)
            throws Exception {
        Source harness = Source.here("harness");
        LabNamespace cns = LabNamespace.of(ns.prefix() + "." + cfg.name());
        String topic = cns.topic();
        TopicPartition tp = new TopicPartition(topic, 0);
        ctx.step(cfg.describe());
        ops.createTopic(cns, topic, 1, BROKERS, cfg.topicConfigs());
        e.record(harness, new Payload.Note(cfg.name() + ": topic " + topic + " created (" + cfg.describe() + ")"));
        List<SyntheticPayments.Generated> records = SyntheticPayments.generate(cns.prefix(), 3 * BATCH, 7, 10, 0);
        Map<String, Long> acked = new ConcurrentHashMap<>();
        Map<String, String> failed = new ConcurrentHashMap<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProperties(cluster.bootstrapServers(), cfg))) {
            send(producer, topic, records.subList(0, BATCH), acked, failed);
            producer.flush();
            cluster.awaitHighWatermark(tp, acked.size(), Duration.ofSeconds(30)); // the followers hold the first batch: the fault hits only the second
            int leader = cluster.leaderOf(tp);
            List<Integer> followers = cluster.isr(tp).stream().filter(id -> id != leader).toList();
            e.record(harness, new Payload.Note(cfg.name() + ": before the fault, " + placement(cluster, tp) + "; " + acked.size() + " of " + BATCH
                    + " acknowledged and on every in-sync replica (high watermark " + cluster.highWatermark(tp) + ")"));

            for (int f : followers) {
                cluster.freeze(f);
                e.record(harness, new Payload.Note(cfg.name() + ": froze follower broker " + f + " (SIGSTOP; /proc shows it stopped)"));
            }
            // no Admin query while they are frozen: the schedule must thaw them well within the controller's session timeout
            // a frozen follower's fetch may still wait at the leader, and the leader would answer it with the next batch into the frozen
            // follower's socket buffer: let every such fetch expire (replica.fetch.wait.max.ms) so the batch reaches the leader alone
            long fetchWait = Long.parseLong(LocalKafkaCluster.CLUSTER_DEFAULTS.get("replica.fetch.wait.max.ms"));
            Thread.sleep(2 * fetchWait);
            int before = acked.size();
            send(producer, topic, records.subList(BATCH, 2 * BATCH), acked, failed);
            Poll.every(Duration.ofMillis(20)).upTo(Duration.ofSeconds(1)).until(() -> acked.size() >= 2 * BATCH);
            e.record(harness, new Payload.Note(cfg.name() + ": produced " + BATCH + " more while both followers were frozen; the producer saw "
                    + (acked.size() - before) + " of them acknowledged"));
            cluster.kill(leader);
            e.record(harness, new Payload.Note(cfg.name() + ": killed the leader, broker " + leader + " (SIGKILL)"));
            for (int f : followers) {
                cluster.thaw(f);
                e.record(harness, new Payload.Note(cfg.name() + ": thawed broker " + f + " (SIGCONT), before the controller's "
                        + LocalKafkaCluster.CLUSTER_DEFAULTS.get("broker.session.timeout.ms") + " ms session timeout fences it"));
            }
            e.record(harness, new Payload.Note(cfg.name() + ": after the kill and the thaw, before the controller fences broker " + leader + ", "
                    + placement(cluster, tp) + " (the frozen followers stayed in sync)"));
            int elected = cluster.awaitLeaderOtherThan(tp, leader, Duration.ofSeconds(60));
            e.record(harness, new Payload.Note(cfg.name() + ": broker " + elected + " elected leader; " + placement(cluster, tp)));
            cluster.restart(leader);
            ctx.subjects().watch(cluster.pid(leader));
            cluster.awaitInIsr(tp, leader, Duration.ofSeconds(60));
            e.record(harness, new Payload.Note(cfg.name() + ": broker " + leader + " restarted on its data and back in the ISR; "
                    + placement(cluster, tp)));
            send(producer, topic, records.subList(2 * BATCH, 3 * BATCH), acked, failed);
            producer.flush();
        }
        e.record(harness, new Payload.Note(cfg.name() + ": " + acked.size() + " of " + records.size() + " acknowledged, " + failed.size()
                + " failed" + (failed.isEmpty() ? "" : " (e.g. " + failed.values().iterator().next() + ")")));

        // acks=1 acknowledges what the followers may not hold yet, and a reader sees a partition only up to its high watermark:
        // count once that reaches the end of the leader's own log, or a record still on its way to a slow follower would look lost
        int holder = cluster.leaderOf(tp);
        long end = cluster.logEndOffset(tp, holder);
        cluster.awaitHighWatermark(tp, end, Duration.ofSeconds(60));
        e.record(harness, new Payload.Note(cfg.name() + ": the leader, broker " + holder + ", holds the log up to offset " + end
                + " (read from its files) and the high watermark reached it: a reader sees every record the log holds"));
        TopicOracle.TopicCount count = TopicOracle.of(SourceSpec.topic(cluster.bootstrapServers(), topic)).count(Isolation.READ_UNCOMMITTED, acked.keySet());
        List<String> lost = new ArrayList<>(new TreeMap<>(acked).entrySet().stream().filter(x -> count.ofIds().get(x.getKey()) == 0)
                .map(x -> x.getKey() + " (acknowledged at offset " + x.getValue() + ")").toList());
        long duplicated = count.ofIds().values().stream().mapToLong(c -> Math.max(0, c - 1)).sum();
        e.record(harness, new Payload.Note(cfg.name() + ": the log holds " + count.records() + " record(s); of the " + acked.size()
                + " acknowledged, " + lost.size() + " are missing and " + duplicated + " appear more than once"));

        ctx.step(cfg.name() + ": the reference subject drains the topic into the target");
        String inbox = cns.inbox(1);
        String group = cns.group();
        LabContext.Instance drain = ctx.subjects().start(e, ctx.subjects().consumer("durability-" + cfg.name(), cluster.bootstrapServers(), topic, group, inbox));
        OffsetSnapshot drained = ops.awaitDrained(group, topic, ctx.settings().timeouts().drain(), s -> ctx.subjects().checkpoint(drain)).orElse(null);
        ctx.subjects().stop(e, drain);
        Comparison target = null;
        if (drained == null) {
            e.check(Check.notRun(cfg.name() + ": drained into the target", "R12", "lag 0", "the group did not drain within "
                    + ctx.settings().timeouts().drain()));
        } else {
            target = Oracle.of(SourceSpec.topic(cluster.bootstrapServers(), topic), ctx.target().inbox(inbox)).compare(ops.describe(group));
            e.record(harness, target.toPayload());
        }
        return new Result(cfg, records.size(), acked.size(), lost, duplicated, count.records(), target);
    }

    private static void send(KafkaProducer<String, String> producer, String topic, List<SyntheticPayments.Generated> batch, Map<String, Long> acked,
            Map<String, String> failed) {
        for (SyntheticPayments.Generated g : batch) {
            producer.send(new ProducerRecord<>(topic, 0, g.key(), g.value()), (md, ex) -> {
                if (ex == null) {
                    acked.put(g.id(), md.offset());
                } else {
                    failed.put(g.id(), ex.toString());
                }
            });
        }
    }

    private static Properties producerProperties(String bootstrap, Config cfg) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, cfg.acks());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, Boolean.toString(cfg.idempotence()));
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 30_000);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return p;
    }

    private static String placement(LocalKafkaCluster cluster, TopicPartition tp) {
        return tp + " leader " + cluster.leaderOf(tp) + ", ISR " + cluster.isr(tp);
    }

    /** Both configurations side by side, as the report's table. */
    private static Payload.Matrix sideBySide(Result safe, Result unsafe) {
        List<String> rows = List.of("produced", "acknowledged", "acknowledged but lost", "acknowledged, twice in the log", "records in the log",
                "target vs log (oracle)");
        List<Payload.MatrixCell> cells = new ArrayList<>();
        for (Result r : List.of(safe, unsafe)) {
            Map<String, String> v = new HashMap<>();
            v.put("produced", Integer.toString(r.produced()));
            v.put("acknowledged", Integer.toString(r.acknowledged()));
            v.put("acknowledged but lost", Integer.toString(r.lost().size()));
            v.put("acknowledged, twice in the log", Long.toString(r.duplicated()));
            v.put("records in the log", Long.toString(r.inLog()));
            v.put("target vs log (oracle)", r.target() == null ? "not drained" : r.target().status().name());
            rows.forEach(row -> cells.add(new Payload.MatrixCell(row, r.config().name(), v.get(row), null, null, null)));
        }
        return new Payload.Matrix("Durability under one leader crash: measure × configuration", "measure", rows, List.of("safe", "unsafe"), cells);
    }

    private static String rss(LocalKafkaCluster cluster) {
        long total = 0;
        List<String> parts = new ArrayList<>();
        List<Integer> ids = new ArrayList<>(cluster.brokerIds());
        ids.add(LocalKafkaCluster.CONTROLLER_ID);
        for (int id : ids) {
            long kb = io.replaylab.evidence.process.ChildProcess.residentKb(cluster.pid(id)).orElse(0);
            total += kb;
            parts.add((id == LocalKafkaCluster.CONTROLLER_ID ? "controller" : "broker " + id) + " " + kb / 1024 + " MB");
        }
        return "RSS " + total / 1024 + " MB (" + String.join(", ", parts) + ")";
    }

    private static int brokersOf(String bootstrap) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15000);
        try (Admin admin = Admin.create(p)) {
            return admin.describeCluster().nodes().get(15, TimeUnit.SECONDS).size();
        }
    }
}
