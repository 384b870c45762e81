package io.replaylab.evidence.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Each test of the class records one experiment: it takes an
 * {@link io.replaylab.evidence.ExperimentRecorder} parameter (named after the test method), and
 * when the test ends its protocol is saved under {@code target/replay-lab/<TestClass>/<method>/}
 * ({@code evidence.json}, {@code report.md}, {@code report.html}; the base directory is the system
 * property {@code replaylab.evidence.dir}). The experiment's outcome becomes the test's result:
 * PASS passes, FAIL fails with the outcome's reason, NOT_RUN aborts the test (reported skipped, with
 * the reason; with the JUnit configuration parameter {@code replaylab.evidence.not-run=fail} it fails
 * instead, for a CI where no test may be skipped). A test that throws makes its experiment FAIL (an assertion error: a check failed) or
 * NOT_RUN (anything else: it could not complete), and the protocol is saved all the same.
 *
 * <pre>{@code
 * @RecordEvidence(requirements = {"R5", "R6"})
 * class ReplayOfMyConsumerTest {
 *     @Test
 *     void redeliveryAddsNoSecondEffect(ExperimentRecorder e) {
 *         Event redelivered = e.record(Source.here("test"), new Payload.Note("every record delivered again"));
 *         e.check(Check.of("no second effect", "R6", "0 duplicates", "0 duplicates", true));
 *         e.finish(Outcome.judge(e.confirmFault("records delivered again", redelivered), e.checks()));
 *     }
 * }
 * }</pre>
 *
 * <p>Needs {@code junit-jupiter-api} on the test classpath (an optional dependency of evidence-core).
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(EvidenceExtension.class)
public @interface RecordEvidence {
    /** The SPEC requirement ids the experiments exercise (e.g. {@code R8}); a method's annotation overrides the class's. */
    String[] requirements() default {};
}
