package io.cassandragsi.repair.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.config.DriverExecutionProfile;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The driver configuration built from the typed config; no session is opened. */
class CqlSessionsTest {

    private static DriverExecutionProfile profile(GsiConfig cfg) {
        try (DriverConfigLoader loader = CqlSessions.configLoader(cfg)) {
            return loader.getInitialConfig().getDefaultProfile();
        }
    }

    @Test
    void should_set_contact_points_datacenter_and_levels_when_config_has_defaults() {
        DriverExecutionProfile p = profile(GsiConfig.defaults());
        assertThat(p.getStringList(DefaultDriverOption.CONTACT_POINTS)).containsExactly("127.0.0.1:9042");
        assertThat(p.getString(DefaultDriverOption.LOAD_BALANCING_LOCAL_DATACENTER)).isEqualTo("datacenter1");
        assertThat(p.getString(DefaultDriverOption.REQUEST_CONSISTENCY)).isEqualTo("LOCAL_QUORUM");
        assertThat(p.getString(DefaultDriverOption.REQUEST_SERIAL_CONSISTENCY)).isEqualTo("LOCAL_SERIAL");
        // the project's capacity: requests beyond the limit queue instead of failing on a busy connection
        assertThat(p.getString(DefaultDriverOption.REQUEST_THROTTLER_CLASS)).isEqualTo("ConcurrencyLimitingRequestThrottler");
        assertThat(p.getInt(DefaultDriverOption.REQUEST_THROTTLER_MAX_CONCURRENT_REQUESTS)).isEqualTo(2048);
        assertThat(p.getInt(DefaultDriverOption.CONNECTION_POOL_LOCAL_SIZE) * p.getInt(DefaultDriverOption.CONNECTION_MAX_REQUESTS))
                .as("requests one node's connections take").isGreaterThan(2048);
        assertThat(p.isDefined(DefaultDriverOption.AUTH_PROVIDER_CLASS)).isFalse();
        assertThat(p.isDefined(DefaultDriverOption.SSL_ENGINE_FACTORY_CLASS)).isFalse();
        // the driver's reference configuration is underneath
        assertThat(p.getDuration(DefaultDriverOption.REQUEST_TIMEOUT)).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void should_layer_typed_values_over_driver_file_when_driver_config_is_given() {
        GsiConfig cfg = ConfigLoader.load(ConfigLoaderTest.scenario("full.yaml"));
        DriverExecutionProfile p = profile(cfg);
        // typed values win over the file's basic.contact-points
        assertThat(p.getStringList(DefaultDriverOption.CONTACT_POINTS))
                .containsExactly("10.0.0.1:9042", "cass-2.example.com:19042", "[fd00::3]:9042");
        assertThat(p.getString(DefaultDriverOption.LOAD_BALANCING_LOCAL_DATACENTER)).isEqualTo("dc-east");
        // everything else comes from the file
        assertThat(p.getDuration(DefaultDriverOption.REQUEST_TIMEOUT)).isEqualTo(Duration.ofSeconds(7));
        assertThat(p.getInt(DefaultDriverOption.CONNECTION_POOL_LOCAL_SIZE)).as("the file wins over the project's capacity").isEqualTo(2);
        assertThat(p.getString(DefaultDriverOption.REQUEST_THROTTLER_CLASS)).isEqualTo("ConcurrencyLimitingRequestThrottler");
        assertThat(p.getString(DefaultDriverOption.AUTH_PROVIDER_CLASS)).endsWith("PlainTextAuthProvider");
        assertThat(p.getString(DefaultDriverOption.AUTH_PROVIDER_USER_NAME)).isEqualTo("gsi_service");
        assertThat(p.getString(DefaultDriverOption.SSL_ENGINE_FACTORY_CLASS)).endsWith("DefaultSslEngineFactory");
        assertThat(p.getString(DefaultDriverOption.SSL_TRUSTSTORE_PATH)).endsWith("tls/truststore.jks");
        assertThat(p.getString(DefaultDriverOption.SSL_KEYSTORE_PATH)).endsWith("tls/keystore.p12");
        assertThat(p.getBoolean(DefaultDriverOption.SSL_HOSTNAME_VALIDATION)).isFalse();
        assertThat(p.getString(DefaultDriverOption.REQUEST_CONSISTENCY)).isEqualTo("LOCAL_ONE");
        assertThat(p.getString(DefaultDriverOption.REQUEST_SERIAL_CONSISTENCY)).isEqualTo("SERIAL");
    }
}
