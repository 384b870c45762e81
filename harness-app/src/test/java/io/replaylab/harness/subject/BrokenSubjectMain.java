package io.replaylab.harness.subject;

import java.nio.file.Path;

/**
 * Test-only broken variants of the reference consumer, to prove the lab catches them:
 * {@code no-inbox} applies an effect without the inbox check (a second effect on redelivery);
 * {@code commit-first} commits the offset BEFORE the DB commit; {@code skip-replay} jumps over committed-but-unread
 * records to the end (a replay delivers nothing).
 * Args: mode bootstrap topic group db namespace instance logdir.
 */
public final class BrokenSubjectMain {
    private BrokenSubjectMain() {
    }

    public static void main(String[] a) {
        String mode = a[0];
        InboxConsumer.Options o = new InboxConsumer.Options(a[1], a[2], a[3], a[4], a[5], a[6], "classic", 5000, 6000, null,
                Path.of(a[7], a[6] + ".assignments.jsonl"), Path.of(a[7], a[6] + ".processing.jsonl"), 100);
        int rc = new InboxConsumer(o, InboxConsumer.Defect.valueOf(mode.toUpperCase(java.util.Locale.ROOT).replace('-', '_'))).run();
        System.exit(rc);
    }

    /** The --subject-cmd template for a mode, on this JVM's classpath. */
    public static String template(String mode) {
        return "'" + Path.of(System.getProperty("java.home"), "bin", "java") + "' -Xmx256m -cp '" + System.getProperty("java.class.path") + "' "
                + BrokenSubjectMain.class.getName() + " " + mode + " {bootstrap} {topic} {group} {db} {namespace} {instance} {logdir}";
    }
}
