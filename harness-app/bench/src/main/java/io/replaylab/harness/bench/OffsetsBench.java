package io.replaylab.harness.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.replaylab.harness.ReplayLab;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.ResetScope;
import io.replaylab.kafka.ResetTargets;
import io.replaylab.kafka.broker.LocalKafka;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.internals.AppInfoParser;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Describe and plan over one group on a many-partition topic, beside Kafka's own ConsumerGroupCommand. */
@Command(name = "offsets", mixinStandardHelpOptions = true,
        description = "Describe + plan for one group over a topic with many partitions; compare with ConsumerGroupCommand --describe.")
final class OffsetsBench implements BenchCase {
    @Option(names = "--partitions", converter = Count.class, defaultValue = "1000", description = "partitions of the group described and planned (default ${DEFAULT-VALUE})")
    int partitions;

    @Option(names = "--runs", converter = Count.class, defaultValue = "5", description = "measured rounds (default ${DEFAULT-VALUE})")
    int runs;

    @Override
    public int run(BenchContext bench) throws Exception {
        PrintWriter out = bench.out();
        LabNamespace ns = LabNamespace.random("bench");
        try (LocalKafka kafka = LocalKafka.create().start();
             KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers(), Duration.ofSeconds(60))) {
            String b = kafka.bootstrapServers();
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, b))) {
                admin.createTopics(List.of(new NewTopic(ns.topic(), partitions, (short) 1))).all().get();
                Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
                for (int p = 0; p < partitions; p++) {
                    commit.put(new TopicPartition(ns.topic(), p), new OffsetAndMetadata(0));
                }
                admin.alterConsumerGroupOffsets(ns.group(), commit).all().get();
            }
            out.printf("topic %s with %d partitions, group %s with %d committed offsets%n", ns.topic(), partitions, ns.group(), partitions);
            ops.describe(ns.group()); // warm-up: metadata, coordinator
            Samples describeMs = Samples.empty();
            Samples planMs = Samples.empty();
            long describeReq = 0;
            long planReq = 0;
            for (int i = 0; i < runs; i++) {
                long r0 = ops.requestCount();
                long t0 = System.nanoTime();
                ops.describe(ns.group());
                describeMs.add((System.nanoTime() - t0) / 1_000_000);
                describeReq = ops.requestCount() - r0;
                r0 = ops.requestCount();
                t0 = System.nanoTime();
                ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.toEarliest());
                planMs.add((System.nanoTime() - t0) / 1_000_000);
                planReq = ops.requestCount() - r0;
            }
            out.printf("replay-lab describe: median %d ms, %d Admin requests%n", describeMs.roundedMedian(), describeReq);
            out.printf("replay-lab planReset --to-earliest --all-topics: median %d ms, %d Admin requests%n", planMs.roundedMedian(), planReq);

            Method main = consumerGroupCommand().getMethod("main", String[].class);
            String[] args = {"--bootstrap-server", b, "--describe", "--group", ns.group()};
            PrintStream realOut = System.out;
            Samples toolMs = Samples.empty();
            int lines = 0;
            try {
                for (int i = 0; i <= runs; i++) {
                    ByteArrayOutputStream buf = new ByteArrayOutputStream();
                    System.setOut(new PrintStream(buf, true));
                    long t0 = System.nanoTime();
                    main.invoke(null, (Object) args);
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    if (i > 0) {
                        toolMs.add(ms); // the first call warms up class loading, like ours above
                    }
                    lines = (int) buf.toString().lines().filter(l -> l.startsWith(ns.group())).count();
                }
            } finally {
                System.setOut(realOut);
            }
            out.printf("ConsumerGroupCommand --describe (in-process): median %d ms, %d partition rows%n", toolMs.roundedMedian(), lines);
        }
        return ReplayLab.OK;
    }

    /**
     * Kafka's own ConsumerGroupCommand, for this bench only: from the classpath if it is there, else
     * from kafka-tools (same version as kafka-clients) in the local Maven repository, which a build of
     * this project fills; replay-lab itself does not depend on it.
     */
    static Class<?> consumerGroupCommand() throws Exception {
        String name = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand";
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException notHere) {
            String v = AppInfoParser.getVersion();
            Path repo = Path.of(System.getProperty("maven.repo.local", Path.of(System.getProperty("user.home"), ".m2", "repository").toString()));
            Path jar = repo.resolve(Path.of("org", "apache", "kafka", "kafka-tools", v, "kafka-tools-" + v + ".jar"));
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException("bench offsets compares with Kafka's ConsumerGroupCommand from kafka-tools " + v + ", not found at "
                        + jar + "; fetch it with: mvn dependency:get -Dartifact=org.apache.kafka:kafka-tools:" + v, notHere);
            }
            URLClassLoader tools = new URLClassLoader(new URL[] {jar.toUri().toURL()}, OffsetsBench.class.getClassLoader());
            return Class.forName(name, true, tools);
        }
    }
}
