package io.replaylab.harness.subject;

import io.replaylab.harness.lab.Subject;
import java.nio.file.Path;


/**
 * Test-only broken variants of the reference consumer, to prove the lab catches them:
 * {@code no-inbox} applies an effect without the inbox check (a second effect on redelivery);
 * {@code commit-first} commits the offset BEFORE the DB commit; {@code skip-replay} jumps over committed-but-unread
 * records to the end (a replay delivers nothing); {@code stall}, {@code stall-on-replay}, {@code stall-in-g2},
 * {@code stall-after-rebalance} stop reading at that moment; {@code lossy} loses every 10th effect;
 * {@code occupy-plans} puts a file where the harness saves its plans; {@code ignore-sigterm} never leaves the group;
 * {@code global-inbox} checks ids without their namespace; {@code write-to-g1} rebuilds into generation 1.
 * Args: mode bootstrap topic group db namespace instance logdir.
 */
public final class BrokenSubjectMain {
    private BrokenSubjectMain() {
    }

    public static void main(String[] a) throws Exception {
        String mode = a[0];
        if (mode.equals("occupy-plans")) {
            // something else holds the path where the harness saves its reset plans: the reset must be refused, not forced
            Path plans = Path.of(a[7]).resolveSibling("plans");
            if (!java.nio.file.Files.exists(plans)) {
                java.nio.file.Files.writeString(plans, "not a directory");
            }
            mode = "none";
        }
        if (mode.equals("ignore-sigterm")) {
            sun.misc.Signal.handle(new sun.misc.Signal("TERM"), s -> { }); // only SIGKILL ends it; it never leaves the group
            mode = "none";
        }
        InboxConsumer.Options o = new InboxConsumer.Options(a[1], a[2], a[3], a[4], a[5], a[6], org.apache.kafka.clients.consumer.GroupProtocol.CLASSIC, 5000, 6000, null,
                Path.of(a[7], a[6] + ".assignments.jsonl"), Path.of(a[7], a[6] + ".processing.jsonl"), 100);
        int rc = new InboxConsumer(o, InboxConsumer.Defect.valueOf(mode.toUpperCase(java.util.Locale.ROOT).replace('-', '_'))).run();
        System.exit(rc);
    }

    /** The --subject-cmd template for a mode, on this JVM's classpath. */
    public static String template(String mode) {
        return Subject.javaCommand(BrokenSubjectMain.class.getName(), "-Xmx256m") + " " + mode + " {bootstrap} {topic} {group} {db} {namespace} {instance} {logdir}";
    }
}
