package io.cassandragsi.repair.config;

import java.nio.file.Path;

/**
 * {@code cassandra.tls}: client-to-node encryption with the driver's default SSL engine factory.
 * Paths are absolute (relative ones in the file are resolved against the file's directory).
 */
public record TlsConfig(
        boolean enabled,
        Path truststorePath,
        String truststorePassword,
        Path keystorePath,
        String keystorePassword,
        boolean hostnameValidation) {

    public static TlsConfig disabled() {
        return new TlsConfig(false, null, null, null, null, true);
    }

    @Override
    public String toString() {
        return "TlsConfig[enabled=" + enabled + ", truststore=" + truststorePath + ", keystore=" + keystorePath
                + ", hostnameValidation=" + hostnameValidation + "]";
    }
}
