package io.replaylab.evidence;

/** Limitations that a lab run states rather than hides (SPEC R15). */
public final class Limitations {
    private Limitations() {
    }

    public static final String SINGLE_BROKER_SINGLE_DB = singleBrokerAndDatabase("SQLite DB");

    /** R15 for a run on one broker and one target database, named as it was (e.g. "SQLite DB", "PostgreSQL database"). */
    public static String singleBrokerAndDatabase(String database) {
        return "One broker and one " + database + ": this says nothing about replicated durability or Kafka transactions (EOS).";
    }
}
