package io.replaylab.evidence;

import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

/**
 * A run's evidence as JUnit XML, the report every CI system reads: one {@code testcase} per experiment and per cell (a
 * cell is an experiment of its own in the evidence, e.g. {@code schedules.before-db-commit.hold}), a FAIL as a
 * {@code failure} whose message is the reason and whose text lists the failed checks, a NOT_RUN as {@code skipped} with its
 * reason, the fault's confirmation in {@code system-out}.
 *
 * <pre>{@code
 * JunitXml.write(Evidence.read(runDir.resolve("evidence.json")), Path.of("target/replay-lab.xml"));
 * }</pre>
 */
public final class JunitXml {
    private JunitXml() {
    }

    /** Writes {@code run} to {@code file} whole (a temporary file moved into place: never half written). */
    public static void write(RunEvidence run, Path file) {
        AtomicFiles.writeString(file, of(run));
    }

    /** {@code run} as JUnit XML. */
    public static String of(RunEvidence run) {
        List<ExperimentEvidence> xs = run.experiments();
        long failures = xs.stream().filter(x -> x.outcome().status() == Status.FAIL).count();
        long skipped = xs.stream().filter(x -> x.outcome().status() == Status.NOT_RUN).count();
        StringWriter out = new StringWriter();
        try {
            XMLStreamWriter w = XMLOutputFactory.newFactory().createXMLStreamWriter(out);
            w.writeStartDocument("UTF-8", "1.0");
            w.writeCharacters("\n");
            w.writeStartElement("testsuites");
            w.writeAttribute("name", "replay-lab");
            counts(w, xs.size(), failures, skipped, seconds(run.started(), run.ended()));
            w.writeCharacters("\n  ");
            w.writeStartElement("testsuite");
            w.writeAttribute("name", "replay-lab " + run.runId());
            counts(w, xs.size(), failures, skipped, seconds(run.started(), run.ended()));
            if (run.started() != null) {
                w.writeAttribute("timestamp", run.started().toString());
            }
            for (ExperimentEvidence x : xs) {
                testcase(w, x);
            }
            w.writeCharacters("\n  ");
            w.writeEndElement();
            w.writeCharacters("\n");
            w.writeEndElement();
            w.writeCharacters("\n");
            w.writeEndDocument();
            w.close();
        } catch (XMLStreamException e) {
            throw new IllegalStateException("cannot write the JUnit XML of run " + run.runId(), e);
        }
        return out.toString();
    }

    private static void counts(XMLStreamWriter w, long tests, long failures, long skipped, String time) throws XMLStreamException {
        w.writeAttribute("tests", Long.toString(tests));
        w.writeAttribute("failures", Long.toString(failures));
        w.writeAttribute("errors", "0");
        w.writeAttribute("skipped", Long.toString(skipped));
        w.writeAttribute("time", time);
    }

    private static void testcase(XMLStreamWriter w, ExperimentEvidence x) throws XMLStreamException {
        Outcome o = x.outcome();
        w.writeCharacters("\n    ");
        w.writeStartElement("testcase");
        // a cell's experiment is its class: schedules.before-db-commit.hold is testcase before-db-commit.hold of class schedules
        int dot = x.name().indexOf('.');
        w.writeAttribute("classname", "replay-lab." + (dot < 0 ? x.name() : x.name().substring(0, dot)));
        w.writeAttribute("name", x.name());
        w.writeAttribute("time", seconds(x.started(), x.ended()));
        if (o.status() == Status.FAIL) {
            w.writeCharacters("\n      ");
            w.writeStartElement("failure");
            w.writeAttribute("message", text(o.reason()));
            w.writeAttribute("type", o.failKind() == null ? "FAIL" : o.failKind().name());
            StringBuilder b = new StringBuilder(text(o.reason()));
            x.checks().stream().filter(c -> c.status() == Status.FAIL).forEach(c -> b.append("\n").append(c.name()).append(" (").append(c.requirement())
                    .append("): expected ").append(c.expected()).append(", was ").append(c.actual()));
            w.writeCharacters(b.toString());
            w.writeEndElement();
        } else if (o.status() == Status.NOT_RUN) {
            w.writeCharacters("\n      ");
            w.writeEmptyElement("skipped");
            w.writeAttribute("message", "NOT_RUN: " + text(o.reason()));
        }
        if (o.confirmation() != null) {
            w.writeCharacters("\n      ");
            w.writeStartElement("system-out");
            w.writeCharacters("fault confirmed: " + text(o.confirmation().description()));
            w.writeEndElement();
        }
        w.writeCharacters("\n    ");
        w.writeEndElement();
    }

    /** XML 1.0 takes no control characters but tab, newline and carriage return. */
    private static String text(String s) {
        return s == null ? "" : s.replaceAll("[\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F]", "?");
    }

    private static String seconds(Instant from, Instant to) {
        if (from == null || to == null) {
            return "0";
        }
        return String.format(java.util.Locale.ROOT, "%.3f", Duration.between(from, to).toMillis() / 1000.0);
    }
}
