package io.replaylab.harness.lab.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Each test of the class may take a {@link LabRunner} parameter and run whole experiments with it;
 * the protocol goes under {@code target/replay-lab/<TestClass>/<method>/<run-id>/} (the base is the
 * system property {@code replaylab.evidence.dir}, as for {@code @RecordEvidence}), and the run's
 * outcome becomes the test's result: PASS passes, FAIL fails with the reason, NOT_RUN aborts the
 * test with the reason (fails it with the JUnit configuration parameter
 * {@code replaylab.evidence.not-run=fail}). {@link LabRunner#expect} turns an expected FAIL (a
 * defective consumer) into a passing test.
 *
 * <pre>{@code
 * @RecordLab
 * class PaymentsConsumerTest {
 *     @Test
 *     void survivesReplayAndRebalance(LabRunner lab) throws Exception {
 *         lab.run(LabSettings.custom().subject(Subject.javaMain(PaymentsConsumer.class, "{bootstrap}", ...))
 *                 .experiments(Experiments.replay(), Experiments.rebalance()));
 *     }
 * }
 * }</pre>
 *
 * <p>Needs {@code junit-jupiter-api} on the test classpath (an optional dependency of harness-lab).
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(LabExtension.class)
public @interface RecordLab {
}
