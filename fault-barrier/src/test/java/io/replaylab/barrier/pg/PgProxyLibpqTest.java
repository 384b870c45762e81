package io.replaylab.barrier.pg;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.replaylab.barrier.Arrival;
import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.PgPoint;
import io.replaylab.evidence.junit.Prerequisite;
import io.replaylab.oracle.testing.LocalPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Not only the JVM's client: a libpq program (Debian's python3-psycopg2), which asks for TLS on its
 * own (sslmode=prefer) and speaks the simple query protocol, is held at its COMMIT the same way.
 */
class PgProxyLibpqTest {
    private static final String PYTHON = "/usr/bin/python3";

    @RegisterExtension
    final ProxiedDatabase db = new ProxiedDatabase("id text PRIMARY KEY");
    /** Inserts its argument and commits, through the proxy: psycopg2 opens a transaction on the first statement. */
    private static final String CLIENT = String.join("\n",
            "import sys, psycopg2",
            "c = psycopg2.connect(host='127.0.0.1', port=int(sys.argv[1]), dbname=sys.argv[2], user=sys.argv[3], password=sys.argv[4],",
            "                     sslmode='prefer', application_name='psycopg-consumer')",
            "cur = c.cursor()",
            "cur.execute('INSERT INTO effect VALUES (%s)', (sys.argv[5],))",
            "c.commit()",
            "print('committed', flush=True)");

    @Test
    void aLibpqClientIsHeldAtItsCommitAsTheJvmsIs() throws Exception {
        Process check = new ProcessBuilder(PYTHON, "-c", "import psycopg2").redirectErrorStream(true).start();
        if (!check.waitFor(30, TimeUnit.SECONDS) || check.exitValue() != 0) {
            Prerequisite.missing("no psycopg2 for " + PYTHON + "; install it with: sudo apt-get install -y python3-psycopg2");
        }
        PgProxy proxy = db.proxy();
        Barrier b = proxy.arm("before-db-commit", PgPoint.beforeCommit(db.database()), HoldMode.THREAD, t -> { }, BarrierOptions.ofDefaults());
        Process client = new ProcessBuilder(List.of(PYTHON, "-c", CLIENT, Integer.toString(proxy.port()), db.database(), LocalPostgres.USER,
                LocalPostgres.PASSWORD, "py-1")).redirectErrorStream(true).start();
        try {
            Arrival a = b.awaitArrival(Duration.ofSeconds(30));
            assertThat(a.context()).containsEntry("statement", "COMMIT").containsEntry("application_name", "psycopg-consumer");
            assertThat(db.ids()).as("its transaction open while the COMMIT is held").isEmpty();
            assertThat(client.isAlive()).isTrue();

            b.release();
            assertThat(client.waitFor(30, TimeUnit.SECONDS)).isTrue();
            String out = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(client.exitValue()).as(out).isZero();
            assertThat(out).contains("committed");
            assertThat(db.ids()).containsExactly("py-1");
            assertThat(proxy.encryptionDeclined()).as("libpq asked for TLS first (sslmode=prefer)").isPositive();
        } finally {
            client.destroyForcibly();
        }
    }
}
