package io.replaylab.harness;

import java.io.PrintWriter;
import java.io.StringWriter;

/** One run of the CLI in this JVM, as a user's console shows it: the exit code, stdout and stderr. */
record Console(int rc, String out, String err) {
    static Console run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = ReplayLab.run(new PrintWriter(out), new PrintWriter(err), args);
        return new Console(rc, out.toString(), err.toString());
    }

    /** Both streams, for an assertion's description. */
    String both() {
        return out + "\n" + err;
    }
}
