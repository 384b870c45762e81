package io.replaylab.harness;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.replaylab.evidence.Evidence;
import io.replaylab.evidence.EvidenceFormatException;
import io.replaylab.evidence.Reports;
import io.replaylab.evidence.RunEvidence;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code replay-lab report EVIDENCE.json [--format md|html]}: renders a saved run. */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Render a saved run (evidence.json, or the journal.jsonl of a run that never finished) as markdown or HTML.")
final class ReportCommand implements Callable<Integer> {
    enum Format { md, html }

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "EVIDENCE", description = "evidence.json, journal.jsonl, or a run directory")
    Path file;

    @Option(names = "--format", defaultValue = "md", description = "md or html (default md)")
    Format format;

    @Override
    public Integer call() {
        Path target = Files.isDirectory(file) ? file.resolve(Evidence.EVIDENCE_FILE) : file;
        RunEvidence run;
        try {
            run = Evidence.read(target);
        } catch (EvidenceFormatException e) {
            spec.commandLine().getErr().println("error: " + e.getMessage());
            Path journal = target.resolveSibling(Evidence.JOURNAL_FILE);
            if (target.getFileName().toString().endsWith(".jsonl") || !Files.isRegularFile(journal)) {
                return ReplayLab.BAD_INPUT;
            }
            spec.commandLine().getErr().println("showing what the journal beside it holds: " + journal);
            run = Evidence.read(journal);
            print(run);
            return ReplayLab.BAD_INPUT;
        }
        print(run);
        return ReplayLab.OK;
    }

    private void print(RunEvidence run) {
        spec.commandLine().getOut().print(format == Format.html ? Reports.html(run) : Reports.markdown(run));
        spec.commandLine().getOut().flush();
    }
}
