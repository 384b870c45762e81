package io.replaylab.harness.experiment;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.kafka.LabNamespace;

/** What the matrix experiments share: each cell a part of its own, in a namespace of its own, run side by side. */
final class Cells {
    private Cells() {
    }

    /** One cell's run, in its own namespace and evidence. */
    interface Body<C> {
        Outcome run(LabContext ctx, LabNamespace ns, ExperimentRecorder e, C cell) throws Exception;
    }

    /** Runs each cell as the part {@code partName}, up to the run's parallel at a time; each cell's outcome, in the cells' order. */
    static <C> Map<C, Outcome> run(LabContext ctx, LabNamespace ns, String[] requirements, List<C> cells, Function<C, String> id,
            Function<C, String> partName, Body<C> body) {
        ctx.step(cells.size() + " cell(s), up to " + ctx.settings().parallel() + " at a time");
        List<Outcome> done = ctx.parts(cells.stream().map(cell -> new LabContext.Part(partName.apply(cell), List.of(requirements),
                namespace(ns, id.apply(cell)), (c, cellNs, x) -> body.run(c, cellNs, x, cell))).toList());
        Map<C, Outcome> outcomes = new LinkedHashMap<>();
        for (int i = 0; i < cells.size(); i++) {
            outcomes.put(cells.get(i), done.get(i));
        }
        return outcomes;
    }

    /** The namespace of the cell {@code id} of the experiment in {@code ns}. */
    static LabNamespace namespace(LabNamespace ns, String id) {
        return LabNamespace.of(ns.prefix() + "." + id);
    }

    /**
     * The fault experiments' matrix: a row per cell, in one {@code column} (where they ran), each linking to its part and
     * saying what its fault means; recorded, then the worst cell's verdict.
     */
    static <C> Outcome faultMatrix(ExperimentRecorder e, Map<C, Outcome> outcomes, Function<C, String> partName, Function<C, String> meaning,
            String title, String column, String confirmed) {
        List<Payload.MatrixCell> matrix = new ArrayList<>();
        outcomes.forEach((cell, o) -> matrix.add(new Payload.MatrixCell(cell.toString(), column, o.status().name(), partName.apply(cell),
                meaning.apply(cell), o.reason())));
        e.record(Source.here("harness"), new Payload.Matrix(title, "fault", outcomes.keySet().stream().map(Object::toString).toList(),
                List.of(column), matrix));
        return Verdicts.worstCell(e, outcomes, confirmed);
    }
}
