package io.replaylab.oracle.testing;

/**
 * The tests' PostgreSQL as a program, for benchmarks and manual runs: starts it, makes one
 * database, prints its URL and the login on stdout, and runs until stdin closes or the process is
 * stopped. Example: {@code ./replay-lab bench oracle --target-jdbc-url URL --target-user lab} with
 * the password in {@code REPLAYLAB_TARGET_PASSWORD}.
 */
public final class LocalPostgresMain {
    private LocalPostgresMain() {
    }

    public static void main(String[] args) throws Exception {
        LocalPostgres pg = LocalPostgres.shared();
        String url = pg.createDatabase();
        System.out.println(url + " user=" + LocalPostgres.USER + " password=" + LocalPostgres.PASSWORD);
        System.out.flush();
        while (System.in.read() >= 0) {
            // until stdin closes
        }
    }
}
