package io.cassandragsi.conf;

/**
 * A node did not answer within the bound the caller asked for, and is left running: it showed
 * progress, so it may still be starting (docs/design.md section 10).
 */
public class StillStartingException extends LocalClusterException {
    private static final long serialVersionUID = 1L;

    public StillStartingException(String message) {
        super(message);
    }
}
