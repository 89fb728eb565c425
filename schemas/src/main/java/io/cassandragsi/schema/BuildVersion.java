package io.cassandragsi.schema;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The version of cassandra-gsi this class was built as: one property of the build (the root pom's
 * version), written into {@code gsi-build.properties} next to this class. The service and the
 * trigger jar (which shades this module) both report it, so that an operator can tell which
 * trigger jar a node runs (docs/deployment.md, Versions).
 */
public final class BuildVersion {
    /** The resource, relative to this class, that the build writes. */
    public static final String RESOURCE = "gsi-build.properties";
    /** What {@link #get()} answers when the resource is missing or was not filtered (a build from an IDE). */
    public static final String UNKNOWN = "unknown";

    private static final String VERSION = read(BuildVersion.class);

    private BuildVersion() {}

    /** The version, e.g. {@code 0.1.0} or {@code 0.2.0-SNAPSHOT}; {@value #UNKNOWN} when the build did not write it. */
    public static String get() {
        return VERSION;
    }

    /** The version in the {@code gsi-build.properties} beside {@code anchor} (its class loader's copy). */
    static String read(Class<?> anchor) {
        try (InputStream in = anchor.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return UNKNOWN;
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", "").trim();
            return v.isEmpty() || v.startsWith("${") ? UNKNOWN : v;
        } catch (IOException e) {
            return UNKNOWN;
        }
    }
}
