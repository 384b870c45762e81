package io.replaylab.harness;

import io.replaylab.harness.lab.Subject;
import io.replaylab.oracle.TargetSpec;
import picocli.CommandLine.Option;

/**
 * The target database's login, the same on every command that opens one. A password is better
 * given in {@value #PASSWORD_ENV} than on the command line, where {@code ps} shows it; it is never
 * printed nor written to the evidence either way. Public for the benches, which take the same options.
 */
public final class TargetLogin {
    public static final String PASSWORD_ENV = Subject.TARGET_PASSWORD_ENV;

    @Option(names = "--target-user", description = "the target database's user (or user= in the JDBC URL)")
    String user;

    @Option(names = "--target-password", description = "its password (or password= in the JDBC URL, or the environment variable "
            + PASSWORD_ENV + ", which keeps it out of ps)")
    String password;

    /** The spec with this login where one was given (the options win over user= and password= in the URL). */
    public TargetSpec applyTo(TargetSpec spec) {
        String pw = password();
        return user == null && pw == null ? spec : spec.credentials(user != null ? user : spec.user(), pw != null ? pw : spec.password());
    }

    /** The password from the option, else the environment, else null (the URL's or none). */
    public String password() {
        if (password != null) {
            return password;
        }
        String env = System.getenv(PASSWORD_ENV);
        return env == null || env.isEmpty() ? null : env;
    }
}
