package io.cassandragsi.repair.config;

/**
 * A configuration that cannot be used. The message names the file and, where it applies, the key
 * (as a dotted path such as {@code cassandra.tls.truststore.path}), so that the mistake can be found
 * without reading code.
 */
public class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String source;
    private final String key;

    public ConfigException(String source, String key, String problem) {
        super((source == null ? "<config>" : source) + ": " + (key == null ? "" : "key '" + key + "': ") + problem);
        this.source = source;
        this.key = key;
    }

    /** The file (or other source) the problem is in. */
    public String source() {
        return source;
    }

    /** The dotted key the problem is about, or null when it is about the file as a whole. */
    public String key() {
        return key;
    }
}
