package io.replaylab.evidence;

/** Limitations that a lab run states rather than hides (SPEC R15). */
public final class Limitations {
    private Limitations() {
    }

    public static final String SINGLE_BROKER_SINGLE_DB =
            "One broker and one SQLite DB: this says nothing about replicated durability or Kafka transactions (EOS).";
}
