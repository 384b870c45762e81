package com.example.own;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.harness.experiment.Experiments;
import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.lab.Subject;
import io.replaylab.harness.lab.junit.LabRunner;
import io.replaylab.harness.lab.junit.RecordLab;
import org.junit.jupiter.api.Test;

/** replay-lab's replay and rebalance experiments on our consumer and on its twin without the inbox, each run on a local broker of its own. */
@RecordLab
class PaymentsConsumerTest {
    static LabSettings.Builder replayAndRebalance(Class<?> consumer) {
        return LabSettings.custom()
                .subject(Subject.javaMain(consumer, "{bootstrap}", "{topic}", "{group}", "{db}", "{namespace}", "{instance}"))
                .targetQuery("SELECT msg AS message_id, amount FROM effects WHERE ns = {namespace}")
                .experiments(Experiments.replay(), Experiments.rebalance())
                .records(60);
    }

    @Test
    void ourConsumerSurvivesReplayAndRebalanceWithoutASecondEffect(LabRunner lab) throws Exception {
        lab.run(replayAndRebalance(PaymentsConsumer.class)); // PASS passes; FAIL fails with the reason; NOT_RUN aborts with it
    }

    @Test
    void itsTwinWithoutTheInboxFailsBoth(LabRunner lab) throws Exception {
        Lab.LabResult r = lab.expect(Status.FAIL, replayAndRebalance(PaymentsConsumer.WithoutInbox.class));

        for (ExperimentEvidence x : r.evidence().experiments()) {
            assertTrue(x.outcome().status() == Status.FAIL && x.checks().stream().anyMatch(c -> c.status() == Status.FAIL),
                    x.name() + " FAILs on a check: " + x.outcome());
        }
    }
}
