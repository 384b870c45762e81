package io.replaylab.oracle;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What reading one record costs the oracle: the reference payload through its flat reader (the path a
 * default run takes, unchanged by the mappings), beside the same bytes and the handbook's shape through
 * a mapping ({@link SourceMapping}). Run after {@code mvn -B -q install -DskipTests}:
 * <pre>{@code
 * mvn -B -q -pl oracle test-compile exec:exec -Dexec.executable=java -Dexec.classpathScope=test \
 *     -Dexec.args="-cp %classpath org.openjdk.jmh.Main RecordParserBenchmark"
 * }</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {"-XX:+UseSerialGC"})
public class RecordParserBenchmark {
    private static final byte[] REFERENCE = "{\"id\":\"rl-ab12.replay-17\",\"account\":\"acc-3\",\"amount\":48211}".getBytes(StandardCharsets.UTF_8);
    private static final byte[] HANDBOOK = "{\"paymentId\":\"rl-ab12.replay-17\",\"amountCents\":48211,\"currency\":\"EUR\"}"
            .getBytes(StandardCharsets.UTF_8);
    private static final byte[] KEY = "rl-ab12.replay-17".getBytes(StandardCharsets.UTF_8);
    private static final byte[] NESTED = "{\"meta\":{\"source\":\"web\",\"tags\":[\"a\",\"b\"]},\"payment\":{\"id\":\"rl-ab12.replay-17\",\"money\":{\"cents\":\"482.11\"}}}"
            .getBytes(StandardCharsets.UTF_8);

    private final RecordParser reference = RecordParsers.paymentJson();
    private final RecordParser referenceMapped = new MappedParser(SourceMapping.REFERENCE);
    private final RecordParser handbook = RecordParsers.mapped(SourceMapping.of("key", "json:/amountCents", 0));
    private final RecordParser nested = RecordParsers.mapped(SourceMapping.of("json:/payment/id", "json:/payment/money/cents", 2));

    /** The default run's path: the reference shape, flat reader. */
    @Benchmark
    public RecordParser.Parsed referenceShapeFlatReader() {
        return reference.parse(null, REFERENCE);
    }

    /** The same bytes through the general mapped reader: what the flat reader saves. */
    @Benchmark
    public RecordParser.Parsed referenceShapeMappedReader() {
        return referenceMapped.parse(null, REFERENCE);
    }

    /** The handbook's shape: id in the key, amount at /amountCents. */
    @Benchmark
    public RecordParser.Parsed handbookShapeKeyAndPointer() {
        return handbook.parse(KEY, HANDBOOK);
    }

    /** Nested pointers past a skipped object and a decimal amount with a scale. */
    @Benchmark
    public RecordParser.Parsed nestedPointersScaledAmount() {
        return nested.parse(null, NESTED);
    }
}
