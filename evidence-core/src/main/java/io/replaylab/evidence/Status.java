package io.replaylab.evidence;

/**
 * The three honest outcomes (SPEC R14). Declared from best to worst: combining keeps the worst,
 * so FAIL beats NOT_RUN beats PASS.
 */
public enum Status {
    PASS,
    NOT_RUN,
    FAIL;
}
