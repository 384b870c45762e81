package io.replaylab.harness.bench;

import io.replaylab.harness.ReplayLab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import java.util.List;
import java.util.Set;

import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import io.replaylab.kafka.testing.Gdb;
import io.replaylab.kafka.testing.PythonConsumer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmarks stay runnable: each bench in its smallest configuration (against the shared broker where it takes one,
 * cleaning up after itself), and the command line that lists them. Not here: {@code subject} (40 s: five CLI JVMs and
 * their idle waits) and {@code run} (whole runs, minutes), beyond the run bench's refusals.
 */
@LocalKafkaTest
class BenchTest {
    @Test
    void oracleBenchReportsMediansAndTheBoundedHeapRunsAndLeavesNoTopic(LocalKafka kafka) throws Exception {
        Set<String> before = topics(kafka);

        Ran bench = bench("oracle", "--bootstrap-server", kafka.bootstrapServers(),
                "--records", "3000", "--runs", "1");

        assertThat(bench.rc()).as(bench.both()).isZero();
        assertThat(bench.out())
                .contains("setup: 3000 records in 6 partitions")
                .containsPattern("median of 1 rounds: raw reads \\d+ ms \\(drain \\d+ \\+ SELECT \\d+\\), oracle \\d+ ms = [0-9.]+x")
                .containsPattern("-Xmx256m JVM .*: exit 0 .*Oracle PASS: 3000 source records")
                .containsPattern("-Xmx64m JVM .*: exit 0 .*Oracle PASS: 3000 source records");
        assertThat(topics(kafka)).isEqualTo(before);
    }

    @Test
    void wireBenchComparesTheProxyWithDirectAndLeavesNoTopic(LocalKafka kafka) throws Exception {
        Set<String> before = topics(kafka);

        Ran bench = bench("wire", "--bootstrap-server", kafka.bootstrapServers(),
                "--records", "2000", "--runs", "1", "--repeat", "2", "--requests", "50");

        assertThat(bench.rc()).as(bench.both()).isZero();
        assertThat(bench.out())
                .containsPattern("1 rounds, 2000 records, each path 2 times per round, mean per run: drain direct \\d+ ms, proxy \\d+ ms = [0-9.]+x;"
                        + " produce direct \\d+ ms, proxy \\d+ ms = [0-9.]+x")
                .containsPattern("machine CPU per drain and produce \\(client, proxy and broker, all cores\\): direct \\d+ ms, proxy \\d+ ms")
                .containsPattern("latency per produce request \\(50 sequential per path, interleaved, acks=all\\): direct median \\d+ us, p99 \\d+ us;"
                        + " proxy median \\d+ us")
                .containsPattern("proxy: [1-9]\\d* connections, [1-9]\\d* requests forwarded")
                .contains("drain: 1 round, no interval: more rounds (--runs) judge the 1.05x goal")
                .doesNotContain("armed");
        assertThat(topics(kafka)).isEqualTo(before);

        Ran armed = bench("wire", "--bootstrap-server", kafka.bootstrapServers(), "--records", "2000", "--runs", "2", "--repeat", "2",
                "--requests", "50", "--armed");
        assertThat(armed.rc()).as(armed.both()).isZero();
        assertThat(armed.out()).containsPattern("round 1 +drain .* armed/proxy drain [0-9.]+x, produce [0-9.]+x, proxy CPU [0-9.]+x")
                .containsPattern("armed fault, drain \\(against the plain proxy\\): mean per-round ratio [0-9.]+x, 95% interval [0-9.-]+x over 2 rounds, "
                        + "goal <= 1.02x: (meets|misses|undecided)")
                .containsPattern("proxy CPU per drain and produce \\(its connection threads only\\): plain [0-9.]+ ms, armed [0-9.]+ ms")
                .containsPattern("armed fault, proxy CPU \\(against the plain proxy\\): mean per-round ratio [0-9.]+x")
                // the fault changes sides (the warm-up round before the first turn of the orders has it on the first proxy)
                .contains("(fault on the first proxy)").contains("(fault on the second proxy)");
        assertThat(topics(kafka)).isEqualTo(before);

        Ran checked = bench("wire", "--bootstrap-server", kafka.bootstrapServers(), "--records", "200", "--runs", "1", "--repeat", "2",
                "--requests", "10", "--live-check", "--commits", "20");
        assertThat(checked.rc()).as(checked.both()).isZero();
        assertThat(checked.out()).containsPattern("round 1 +per commit: plain [0-9]+ us, with the live check [0-9]+ us")
                .containsPattern("live check, 20 sequential commitSync through the proxy per path and run, 1 rounds: median per commit plain [0-9]+ us, "
                        + "checked [0-9]+ us = [0-9.]+x");
        assertThat(topics(kafka)).isEqualTo(before);
    }

    @Test
    void nativeBenchComparesAPythonConsumerArmedAtItsSqliteCommitWithNoDebuggerAndLeavesNoTopic(LocalKafka kafka, @TempDir Path dir) throws Exception {
        Gdb.require();
        Set<String> before = topics(kafka);

        Ran bench = bench("native", "--bootstrap-server", kafka.bootstrapServers(),
                "--subject-cmd", PythonConsumer.template(dir, false), "--records", "60", "--runs", "1");

        assertThat(bench.rc()).as(bench.both()).isZero();
        assertThat(bench.out()).containsPattern("not attached +\\d+ records/s")
                .containsPattern("armed +\\d+ records/s \\(\\d+ records in [0-9.]+ s\\); conditions evaluated: [1-9]\\d*")
                .containsPattern("median: not attached \\d+ records/s, armed \\d+ records/s: armed/plain = [0-9.]+ \\(goal >= 0.5\\)");
        assertThat(topics(kafka)).isEqualTo(before);
    }

    @Test
    void pgBenchComparesAConsumerThroughThePostgresProxyWithDirectAndLeavesNoTopicNorSchema(LocalKafka kafka) throws Exception {
        io.replaylab.oracle.testing.LocalPostgres pg = io.replaylab.oracle.testing.LocalPostgres.shared();
        String url = pg.createDatabase();
        Set<String> before = topics(kafka);

        Ran bench = bench("pg", "--bootstrap-server", kafka.bootstrapServers(), "--target-jdbc-url", url,
                "--target-user", io.replaylab.oracle.testing.LocalPostgres.USER, "--target-password", io.replaylab.oracle.testing.LocalPostgres.PASSWORD,
                "--records", "30", "--runs", "1", "--queries", "50");

        assertThat(bench.rc()).as(bench.both()).isZero();
        assertThat(bench.out()).containsPattern("direct +\\d+ records/s").containsPattern("proxied +\\d+ records/s")
                .containsPattern("median: direct \\d+ records/s, through the proxy \\d+ records/s: proxied/direct = [0-9.]+")
                .containsPattern("median round trip: direct [0-9.]+ us, through the proxy [0-9.]+ us: the proxy adds -?[0-9.]+ us per query");
        assertThat(topics(kafka)).isEqualTo(before);
        try (java.sql.Connection c = pg.connect(url); java.sql.Statement s = c.createStatement();
             java.sql.ResultSet r = s.executeQuery("SELECT count(*) FROM information_schema.schemata WHERE schema_name LIKE 'bench%'")) {
            r.next();
            assertThat(r.getInt(1)).as("every run's schema dropped").isZero();
        }
    }

    @Test
    void theWireGoalIsJudgedOnTheIntervalOfThePerRoundRatiosNotOnOneMean() {
        String met = WireBench.againstGoal("drain", Samples.of(1.010, 1.020, 1.015, 1.012, 1.018), 1.05);
        String missed = WireBench.againstGoal("produce", Samples.of(1.100, 1.120, 1.090, 1.110), 1.05);
        String open = WireBench.againstGoal("drain", Samples.of(1.000, 1.100, 1.050, 1.020, 1.080), 1.05);
        String lowMeanWideSpread = WireBench.againstGoal("drain", Samples.of(0.960, 1.120), 1.05);
        String oneRound = WireBench.againstGoal("drain", Samples.of(1.010), 1.05);

        assertThat(met).isEqualTo("drain: mean per-round ratio 1.015x, 95% interval 1.010-1.020x over 5 rounds, goal <= 1.05x: meets the goal");
        assertThat(missed).startsWith("produce: mean per-round ratio 1.105x, 95% interval 1.084-1.126x over 4 rounds").endsWith("misses the goal");
        assertThat(open).startsWith("drain: mean per-round ratio 1.050x, 95% interval 0.999-1.101x")
                .endsWith("undecided: the interval holds the goal, and more rounds (--runs) narrow it");
        assertThat(lowMeanWideSpread).as("a mean of 1.04x from two far-apart rounds is not a met goal").contains("undecided");
        assertThat(oneRound).isEqualTo("drain: 1 round, no interval: more rounds (--runs) judge the 1.05x goal");
    }

    @Test
    void wireBenchRefusesARepeatThatBreaksItsInterleavedOrder() {
        Ran bench = bench("wire", "--repeat", "3");

        assertThat(bench.rc()).isEqualTo(ReplayLab.BAD_INPUT);
        assertThat(bench.err()).contains("--repeat must be even and at least 2 (the A B B A order), was 3");
    }

    @Test
    void runBenchRefusesAnUnknownExperimentSetBeforeItStartsAnyRun() {
        Ran unknown = bench("run", "--experiments", "default,eos");

        assertThat(unknown.rc()).isEqualTo(ReplayLab.BAD_INPUT);
        assertThat(unknown.err()).contains("--experiments takes default and/or schedules, was 'eos'");
        assertThat(unknown.out()).as("no run started").doesNotContain("--parallel 1:");
    }

    /** A zero or negative count would measure nothing and print it as a figure (a median of 0 rounds, NaN ratios). */
    @Test
    void everyBenchRefusesACountBelowItsLeastNamingTheOptionBeforeItStartsAnything() {
        List<String> counts = new java.util.ArrayList<>();
        for (picocli.CommandLine sub : Bench.command().subcommands().values().stream().map(c -> c.getCommandSpec().commandLine()).toList()) {
            for (picocli.CommandLine.Model.OptionSpec o : sub.getCommandSpec().options()) {
                Class<?> kind = o.converters().length == 0 ? null : o.converters()[0].getClass();
                if (kind != Count.class && kind != Count.OrZero.class) {
                    continue;
                }
                String below = kind == Count.class ? "0" : "-1";
                Ran refused = bench(sub.getCommandName(), o.longestName(), below);
                counts.add(sub.getCommandName() + " " + o.longestName());
                assertThat(refused.rc()).as(refused.both()).isEqualTo(ReplayLab.BAD_INPUT);
                assertThat(refused.err()).as(sub.getCommandName()).contains("'" + o.longestName() + "'")
                        .contains("must be at least " + (kind == Count.class ? 1 : 0) + ", was " + below);
                assertThat(refused.out()).as("nothing measured").isEmpty();
            }
        }
        assertThat(counts).as("every count of the benches").contains("oracle --runs", "run --runs", "native --records", "pg --queries",
                "broker --idle-seconds", "wire --commits", "offsets --partitions", "subject --records");
        assertThat(bench("oracle", "--records", "many").err()).contains("'--records'").contains("'many' is not a whole number");
    }

    @Test
    void brokerBenchStartsTheBrokerAndReadsItsRss() {
        Ran bench = bench("broker", "--runs", "1", "--idle-seconds", "0");

        assertThat(bench.rc()).as(bench.both()).isZero();
        assertThat(bench.out())
                .containsPattern("(?m)^run 1: start-to-ready [1-9]\\d* ms \\(format included\\), idle RSS [1-9]\\d* MB$")
                .containsPattern("median: start-to-ready [1-9]\\d* ms, idle RSS [1-9]\\d* MB \\(1 runs\\)");
    }

    @Test
    void offsetsBenchDescribesAndPlansEveryPartitionAsConsumerGroupCommandDoes() {
        Ran bench = bench("offsets", "--partitions", "12", "--runs", "1");

        assertThat(bench.rc()).as(bench.both()).isZero();
        assertThat(bench.out())
                .containsPattern("topic \\S+ with 12 partitions, group \\S+ with 12 committed offsets")
                .containsPattern("replay-lab describe: median \\d+ ms, [1-9]\\d* Admin requests")
                .containsPattern("replay-lab planReset --to-earliest --all-topics: median \\d+ ms, [1-9]\\d* Admin requests")
                .containsPattern("ConsumerGroupCommand --describe \\(in-process\\): median \\d+ ms, 12 partition rows");
    }

    @Test
    void benchListsEveryCaseUnderItsNameInTheOrderOfItsHelp() {
        assertThat(Bench.command().subcommands().keySet()).containsExactly("broker", "cluster", "offsets", "subject", "oracle", "wire", "native", "pg", "run");
        assertThat(Bench.cases()).allSatisfy(c -> assertThat(c.getClass().getModifiers() & java.lang.reflect.Modifier.PUBLIC)
                .as(c.name() + " is package-private").isZero());
    }

    @Test
    void clusterBenchStartsTheClusterAndReadsTheRssOfEveryNode() {
        Ran bench = bench("cluster", "--runs", "1", "--brokers", "2", "--idle-seconds", "0");

        assertThat(bench.rc()).as(bench.both()).isZero();
        assertThat(bench.out())
                .containsPattern("run 1: start-to-ready \\d+ ms \\(format included\\), idle RSS [1-9]\\d* MB \\(broker 1 [1-9]\\d* MB, broker 2 "
                        + "[1-9]\\d* MB, controller [1-9]\\d* MB\\)")
                .containsPattern("median: start-to-ready \\d+ ms, idle RSS \\d+ MB for 2 brokers and a controller \\(1 runs\\)");
    }

    /** One bench command in this JVM: its exit code, stdout and stderr. */
    private record Ran(int rc, String out, String err) {
        String both() {
            return out + "\n" + err;
        }
    }

    private static Ran bench(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = Bench.run(new PrintWriter(out), new PrintWriter(err), args);
        return new Ran(rc, out.toString(), err.toString());
    }

    private static Set<String> topics(LocalKafka kafka) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            return admin.listTopics().names().get();
        }
    }

    @Test
    void everyOptionOfEveryBenchSaysWhatItIsInHelp() {
        List<String> bare = new java.util.ArrayList<>();
        undescribed(Bench.command(), bare);
        assertThat(bare).as("options with no description in --help").isEmpty();
    }

    private static void undescribed(picocli.CommandLine.Model.CommandSpec spec, List<String> out) {
        for (picocli.CommandLine.Model.OptionSpec o : spec.options()) {
            if (o.description().length == 0 || String.join("", o.description()).isBlank()) {
                out.add(spec.qualifiedName() + " " + o.longestName());
            }
        }
        spec.subcommands().values().forEach(sub -> undescribed(sub.getCommandSpec(), out));
    }
}
