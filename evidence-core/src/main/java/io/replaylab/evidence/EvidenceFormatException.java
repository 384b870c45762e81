package io.replaylab.evidence;

/** An evidence or journal file that cannot be read; the message names the file and the line or field. */
public final class EvidenceFormatException extends RuntimeException {
    public EvidenceFormatException(String message, Throwable cause) {
        super(message, cause);
    }

    public EvidenceFormatException(String message) {
        super(message);
    }
}
