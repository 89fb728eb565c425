package io.cassandragsi.repair.service;

/** The service's role lacks a grant it needs; the message names each one and how to grant it. */
public final class MissingGrantsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MissingGrantsException(String message) {
        super(message);
    }
}
