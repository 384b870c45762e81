package io.replaylab.harness.experiment;

import java.util.stream.Collectors;

import io.replaylab.evidence.Check;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Source;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.kafka.ExecuteResetOptions;
import io.replaylab.kafka.OffsetsEvent;
import io.replaylab.kafka.ResetPlan;
import io.replaylab.kafka.ResetPlans;
import io.replaylab.kafka.ResetRefusedException;
import io.replaylab.kafka.ResetResult;
import io.replaylab.kafka.SavedPlan;

/**
 * A replay's reset, the same for a consumer group's committed offsets and a share group's start offsets: executed
 * through every guard with its plan saved first, and the evidence that says so (R4 saved, R3 only an inactive lab group,
 * R2 landed).
 */
final class GuardedReset {
    private GuardedReset() {
    }

    /** The reset's result, or the NOT_RUN outcome of the guards' refusal (recorded). */
    record Done(ResetResult result, Outcome refused) {
    }

    /**
     * Executes {@code plan} in the run's namespace, records the saved plan and checks it; {@code inactive} is the R3
     * check as the group's kind says it, {@code offsets} what its offsets are called ("offsets", "start offsets").
     */
    static Done execute(LabContext ctx, ExperimentRecorder e, Source harness, ResetPlan plan, Check inactive, String offsets) {
        ResetResult reset;
        try {
            reset = ctx.kafka().ops().executeReset(plan, ExecuteResetOptions.custom().allowPrefix(ctx.kafka().namespace().prefix())
                    .allowRemote(ctx.settings().allowRemote()).planDir(ctx.runDir().resolve("plans")).build());
        } catch (ResetRefusedException refused) {
            e.record(harness, new OffsetsEvent.ResetRefused(plan.group(), refused.failedGuards()));
            return new Done(null, Outcome.notRun("the reset was refused: " + String.join("; ", refused.failedGuards())));
        }
        String planFile = ctx.runDir().relativize(reset.saved().file()).toString();
        e.record(harness, plan.toPayload(false, planFile));
        e.artifact(planFile, "the executed plan with the previous " + offsets + " (restore it with KafkaOps, or replay-lab offsets restore)");
        SavedPlan.Status saved = ResetPlans.load(reset.saved().file()).status();
        e.check(Check.of("plan and previous offsets saved before the reset", "R4", "saved plan file, status APPLIED", planFile + " " + saved,
                saved == SavedPlan.Status.APPLIED));
        e.check(inactive);
        e.check(Check.of("reset landed on every partition", "R2", "every partition" + (offsets.equals("offsets") ? "" : "'s start offset")
                + " at its log start", reset.partitions().stream().map(p -> "p" + p.partition() + " " + p.planned() + (p.landed() ? "" : " but is "
                        + p.actual())).collect(Collectors.joining(", ")), reset.allLanded()));
        return new Done(reset, null);
    }
}
