package io.replaylab.harness.bench;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.evidence.process.Poll;
import io.replaylab.harness.lab.SyntheticProducer;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * A consumer's records per second in two variants of its run (e.g. not attached and armed, direct and proxied), each
 * round running both on fresh topics in the {@link Alternation}'s order. A run's rate is taken from sending the
 * measured records to their last commit, once a few records sent before them are committed: start-up and group
 * join are not in it.
 */
final class ConsumerRates {
    /**
     * Records sent (under ids of their own) before the measured ones: once they are committed the consumer has joined
     * and committed, and the clock starts as the measured records are sent. Taking the first committed offset seen as
     * the start instead measured nothing when a fast consumer drained all 60 records between two looks (CI: 0 records
     * in 0.16 s, a rate of 0).
     */
    private static final int WARM_UP = 3;
    private static final int PARTITIONS = 3;

    /** Sends n records to the run's topic, their ids under idPrefix. */
    @FunctionalInterface
    interface Send {
        void records(String idPrefix, int n) throws Exception;
    }

    /** One run of the consumer: {@code variant} 0 or 1 on {@code run}'s own topic and group, its rate from {@link #rate}. */
    @FunctionalInterface
    interface Run {
        long measure(int variant, LabNamespace run, Send send) throws Exception;
    }

    /** The median rate of each variant. */
    record Medians(long first, long second) {
        double ratio() {
            return (double) second / first;
        }
    }

    private ConsumerRates() {
    }

    /** {@code rounds} rounds of both variants, run names ending in {@code suffixes[variant]}; the topics are deleted afterwards. */
    static Medians alternate(String bootstrap, KafkaOps ops, int rounds, List<String> suffixes, Run run) throws Exception {
        LabNamespace ns = LabNamespace.random("bench");
        Alternation alternation = Alternation.of(2);
        List<List<Long>> rates = List.of(new ArrayList<>(), new ArrayList<>());
        List<String> topics = new ArrayList<>();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            try {
                for (int r = 0; r < rounds; r++) {
                    for (int variant : alternation.order(r)) {
                        LabNamespace one = LabNamespace.of(ns.prefix() + ".r" + r + suffixes.get(variant));
                        topics.add(one.topic());
                        // the topic first, the records once the consumer runs (and is armed): a consumer that drained them
                        // before gdb had armed its commit measured nothing (a fresh-clone test run: 0 conditions evaluated)
                        ops.createTopic(one, one.topic(), PARTITIONS);
                        long seed = 7L + r;
                        rates.get(variant).add(run.measure(variant, one, (idPrefix, n) ->
                                SyntheticProducer.produce(bootstrap, one.topic(), PARTITIONS, idPrefix, n, seed, 50, 0, null, null)));
                    }
                }
            } finally {
                admin.deleteTopics(topics).all().get();
            }
        }
        return new Medians(Samples.of(rates.get(0), v -> v).roundedMedian(), Samples.of(rates.get(1), v -> v).roundedMedian());
    }

    /**
     * The rate of consumer {@code c} on {@code run}: {@link #WARM_UP} records committed, then {@code records} from sending
     * them to their last commit; printed as one line, {@code label} first and {@code note} (read after the run) last.
     */
    static long rate(PrintWriter out, ChildProcess c, KafkaOps ops, LabNamespace run, Send send, int records, String label,
            Supplier<String> note) throws Exception {
        send.records(run.inbox(1) + ".warm", WARM_UP);
        awaitCommitted(c, ops, run, WARM_UP);
        long start = System.nanoTime();
        send.records(run.inbox(1), records);
        awaitCommitted(c, ops, run, WARM_UP + records);
        double secs = (System.nanoTime() - start) / 1e9;
        long rate = Math.round(records / secs);
        out.printf("  %-12s %6d records/s (%d records in %.2f s)%s%n", label, rate, records, secs, note.get());
        out.flush();
        return rate;
    }

    /** Waits until {@code run}'s group has committed {@code offsets} in all, failing when the consumer exits or in 5 minutes. */
    private static void awaitCommitted(ChildProcess c, KafkaOps ops, LabNamespace run, long offsets) throws Exception {
        boolean drained = Poll.every(Duration.ofMillis(20)).upTo(Duration.ofMinutes(5)).until(() -> {
            if (!c.isAlive()) {
                throw new IllegalStateException("the consumer exited with " + c.exitCode().orElse(-1) + ": " + c.stderrTail(5));
            }
            return ops.describe(run.group()).partitions().stream().mapToLong(x -> Math.max(0, x.committed())).sum() >= offsets;
        });
        if (!drained) {
            throw new IllegalStateException("the consumer did not commit " + offsets + " offsets within 5 minutes");
        }
    }
}
