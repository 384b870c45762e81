package io.replaylab.harness.subject;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

import io.replaylab.harness.lab.Subject;
import io.replaylab.harness.lab.SyntheticProducer;
import io.replaylab.kafka.GroupType;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code replay-lab subject produce|consume}: the reference subject, run as separate OS processes.
 * The experiments treat it as an opaque program (command line, Kafka, its database).
 */
@Command(name = "subject", mixinStandardHelpOptions = true,
        description = "The reference subject: a synthetic payments producer, a serial inbox consumer projecting into SQLite or PostgreSQL, "
                + "and a transactional consume-transform-produce consumer.",
        subcommands = {SubjectCommand.Produce.class, SubjectCommand.Consume.class, SubjectCommand.Transform.class})
public final class SubjectCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(name = "produce", mixinStandardHelpOptions = true, description = "Produce deterministic synthetic payments.")
    static final class Produce implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        Where at;

        @Option(names = "--partitions", defaultValue = "3", description = "partitions if the topic is created (default 3)")
        int partitions;

        @Option(names = "--count", required = true, description = "number of valid payments")
        int count;

        @Option(names = "--seed", defaultValue = "1", description = "the random seed: the same seed gives the same payments (default ${DEFAULT-VALUE})")
        long seed;

        @Option(names = "--accounts", defaultValue = "10", description = "how many account keys the payments spread over (default ${DEFAULT-VALUE})")
        int accounts;

        @Option(names = "--namespace", required = true, description = "message ids are <namespace>-<seq>")
        String namespace;

        @Option(names = "--malformed", defaultValue = "0", description = "bad records mixed in at seeded positions")
        int malformed;

        @Option(names = "--manifest", description = "write what was produced as JSON")
        Path manifest;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() throws Exception {
            SyntheticProducer.Manifest m = SyntheticProducer.produce(at.bootstrap, client.propertiesOrEnvironment(), at.topic, partitions, namespace, count,
                    seed, accounts, malformed, manifest, null, io.replaylab.harness.lab.RecordSource.reference());
            spec.commandLine().getOut().println(SyntheticProducer.summary(m));
            spec.commandLine().getOut().flush();
            return 0;
        }
    }

    /** Where every command of the reference subject reads or writes. */
    static final class Where {
        @Option(names = "--bootstrap-server", required = true, description = "the broker(s), host:port[,host:port]")
        String bootstrap;

        @Option(names = "--topic", required = true, description = "the topic to read (consume, transform) or fill (produce)")
        String topic;
    }

    /** What both consumers of the reference subject take. */
    static final class ConsumerOptions {
        @Mixin
        Where at;

        @Option(names = "--group", required = true, description = "the consumer group")
        String group;

        @Option(names = "--instance-id", required = true, description = "this instance's name: its client.id and its rows' instance column")
        String instanceId;

        @Option(names = "--group-protocol", defaultValue = "classic", description = "classic (default) or consumer")
        GroupProtocol groupProtocol;

        @Option(names = "--max-poll-interval-ms", defaultValue = "300000", description = "max.poll.interval.ms (default ${DEFAULT-VALUE})")
        int maxPollIntervalMs;

        @Option(names = "--session-timeout-ms", description = "the classic protocol's session.timeout.ms (client default); ignored under the "
                + "consumer protocol, where the broker's group.consumer.session.timeout.ms applies")
        Integer sessionTimeoutMs;

        @Option(names = "--until-idle", description = "exit after no record or assignment change for this long, counted from its first assignment (ISO-8601, e.g. PT3S)")
        Duration untilIdle;

        @Option(names = "--assignment-log", description = "a JSON-lines file of every assignment change (for the lab's evidence)")
        Path assignmentLog;

        @Option(names = "--processing-log", description = "a JSON-lines file of every record handled and what became of it (for the lab's evidence)")
        Path processingLog;

        @Mixin
        ClientOptions client;

        /** The lab gives every subject its session timeout; the consumer protocol refuses it as a client setting, so it is dropped there. */
        void check() {
            if (groupProtocol == GroupProtocol.CONSUMER && sessionTimeoutMs != null) {
                LoggerFactory.getLogger(SubjectCommand.class).info("--session-timeout-ms {} ignored: under the consumer protocol the broker's "
                        + "group.consumer.session.timeout.ms applies", sessionTimeoutMs);
                sessionTimeoutMs = null;
            }
        }
    }

    @Command(name = "consume", mixinStandardHelpOptions = true,
            description = {"Serial consumer: per record one database transaction (inbox + effect), then commitSync.",
                "With --group-type share: a share consumer (KIP-932) with explicit acknowledgement, acquiring only the records it "
                        + "processes: per record one database transaction, then acknowledge(ACCEPT) and commitSync. The share group's own "
                        + "settings (share.auto.offset.reset, share.isolation.level, share.record.lock.duration.ms) are the group's configs: "
                        + "set them before it starts (a new share group starts at latest)."})
    static final class Consume implements Callable<Integer> {
        @Mixin
        ConsumerOptions c;

        @Option(names = "--db", required = true, description = "a SQLite file, or a jdbc:postgresql: URL (password in the environment variable "
                + Subject.TARGET_PASSWORD_ENV + "); shared by instances")
        String db;

        @Option(names = "--namespace", required = true, description = "inbox namespace: lab namespace + target generation, e.g. lab-x/g1")
        String namespace;

        @Option(names = "--max-poll-records", description = "max.poll.records (default 100; " + ShareInboxConsumer.DEFAULT_MAX_POLL_RECORDS
                + " with --group-type share: the records a share member acquires, and holds locks on, per poll)")
        Integer maxPollRecords;

        @Option(names = "--group-type", defaultValue = "consumer", description = "consumer (default): a consumer group; share: a share group "
                + "(--group-protocol, --max-poll-interval-ms and --session-timeout-ms do not apply, no assignment log)")
        GroupType groupType;

        @Override
        public Integer call() {
            if (groupType == GroupType.SHARE) {
                return new ShareInboxConsumer(shareOptions()).run();
            }
            c.check();
            return new InboxConsumer(options()).run();
        }

        InboxConsumer.Options options() {
            return new InboxConsumer.Options(c.at.bootstrap, c.at.topic, c.group, db, namespace, c.instanceId, c.groupProtocol, c.maxPollIntervalMs,
                    c.sessionTimeoutMs, c.untilIdle, c.assignmentLog, c.processingLog, maxPollRecords == null ? 100 : maxPollRecords,
                    c.client.propertiesOrEnvironment());
        }

        /** The consumer-group settings have no share-consumer counterpart (ShareConsumerConfig refuses them): they are left out, said once. */
        ShareInboxConsumer.Options shareOptions() {
            if (c.sessionTimeoutMs != null || c.groupProtocol != GroupProtocol.CLASSIC) {
                LoggerFactory.getLogger(SubjectCommand.class).info("--group-protocol and --session-timeout-ms ignored: a share member's session "
                        + "timeout is the group's share.session.timeout.ms");
            }
            return new ShareInboxConsumer.Options(c.at.bootstrap, c.at.topic, c.group, db, namespace, c.instanceId, c.untilIdle, c.processingLog,
                    maxPollRecords == null ? ShareInboxConsumer.DEFAULT_MAX_POLL_RECORDS : maxPollRecords, c.client.propertiesOrEnvironment());
        }
    }

    @Command(name = "transform", mixinStandardHelpOptions = true,
            description = "Consume-transform-produce (KIP-447): per record one transaction with the output record and the consumed offset.")
    static final class Transform implements Callable<Integer> {
        @Mixin
        ConsumerOptions c;

        @Option(names = "--output-topic", required = true, description = "where the transform writes its output records")
        String outputTopic;

        @Option(names = "--transaction-timeout-ms", defaultValue = "60000", description = "after this the coordinator aborts an open transaction")
        int transactionTimeoutMs;

        @Override
        public Integer call() {
            c.check();
            return new TransformConsumer(new TransformConsumer.Options(c.at.bootstrap, c.at.topic, outputTopic, c.group, c.instanceId, c.groupProtocol,
                    c.maxPollIntervalMs, c.sessionTimeoutMs, transactionTimeoutMs, c.untilIdle, c.assignmentLog, c.processingLog,
                    c.client.propertiesOrEnvironment())).run();
        }
    }
}
