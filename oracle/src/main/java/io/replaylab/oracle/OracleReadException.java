package io.replaylab.oracle;

/**
 * A side could not be read: the broker did not answer within the source's timeout, or the target
 * database refused the connection. Not a verdict, and not bad input: the comparison did not happen.
 */
public final class OracleReadException extends RuntimeException {
    public OracleReadException(String message, Throwable cause) {
        super(message, cause);
    }
}
