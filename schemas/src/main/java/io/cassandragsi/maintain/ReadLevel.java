package io.cassandragsi.maintain;

/**
 * The consistency a maintenance read asks for; the adapter maps it to the configured level
 * (LOCAL_QUORUM and LOCAL_SERIAL by default). Writes always use the configured write level.
 */
public enum ReadLevel {
    /** The read level: a row as an acknowledged write left it. */
    READ,
    /** For conditional writes: a read that completes any Paxos round in progress. */
    SERIAL
}
