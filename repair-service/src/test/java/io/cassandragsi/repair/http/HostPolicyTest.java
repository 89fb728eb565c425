package io.cassandragsi.repair.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Host (DNS rebinding) and Origin (cross-site) decisions, as pure functions. */
class HostPolicyTest {
    private final HostPolicy loopback = new HostPolicy("127.0.0.1", 8080, List.of());

    @Test
    void should_accept_the_bound_address_and_loopback_names_when_bound_to_loopback() {
        for (String host : new String[] {"127.0.0.1:8080", "127.0.0.1", "localhost:8080", "LOCALHOST:8080", "localhost.:8080",
            "[::1]:8080", "127.0.0.2:8080"}) {
            assertThat(loopback.hostAllowed(host)).as(host).isTrue();
        }
    }

    @Test
    void should_refuse_foreign_names_and_other_ports_when_bound_to_loopback() {
        for (String host : new String[] {"evil.example:8080", "evil.example", "127.0.0.1:8081", "localhost:80", "10.0.0.1:8080",
            "127.0.0.1.evil.example:8080", "127.0.0.1:8080@evil", "", " ", "localhost:", "localhost:99999", "[::1", "a..b:8080",
            "local host:8080", "x".repeat(300), null}) {
            assertThat(loopback.hostAllowed(host)).as(host).isFalse();
        }
    }

    @Test
    void should_accept_configured_names_with_or_without_port_when_listed() {
        HostPolicy p = new HostPolicy("10.1.2.3", 8080, List.of("gsi.example.com", "gsi.internal:8080"));
        assertThat(p.hostAllowed("10.1.2.3:8080")).isTrue();
        assertThat(p.hostAllowed("gsi.example.com")).isTrue();
        assertThat(p.hostAllowed("gsi.example.com:443")).as("behind a proxy: any port").isTrue();
        assertThat(p.hostAllowed("GSI.internal:8080")).isTrue();
        assertThat(p.hostAllowed("gsi.internal:9090")).isFalse();
        assertThat(p.hostAllowed("localhost:8080")).as("not bound to loopback").isFalse();
        assertThat(p.hostAllowed("other.example.com:8080")).isFalse();
        assertThat(p.hostAllowed("10.1.2.4:8080")).isFalse();
    }

    @Test
    void should_accept_address_literals_but_no_names_when_bound_to_a_wildcard() {
        HostPolicy p = new HostPolicy("0.0.0.0", 9000, List.of());
        assertThat(p.hostAllowed("192.168.1.20:9000")).isTrue();
        assertThat(p.hostAllowed("[fe80::1]:9000")).isTrue();
        assertThat(p.hostAllowed("localhost:9000")).isTrue();
        assertThat(p.hostAllowed("rebind.attacker.example:9000")).isFalse();
        assertThat(p.hostAllowed("192.168.1.20:9001")).isFalse();
        assertThat(p.hostAllowed("999.1.1.1:9000")).isFalse();
    }

    @Test
    void should_accept_same_origin_and_refuse_foreign_origins_when_state_changing() {
        assertThat(loopback.originAllowed("http://127.0.0.1:8080")).isTrue();
        assertThat(loopback.originAllowed("http://localhost:8080")).isTrue();
        for (String origin : new String[] {"null", "http://evil.example", "http://evil.example:8080", "http://localhost",
            "http://localhost:3000", "https://127.0.0.1", "file://", "chrome-extension://abc", "http://127.0.0.1:8080/path", ""}) {
            assertThat(loopback.originAllowed(origin)).as(origin).isFalse();
        }
        HostPolicy proxied = new HostPolicy("127.0.0.1", 8080, List.of("gsi.example.com"));
        assertThat(proxied.originAllowed("https://gsi.example.com")).isTrue();
        assertThat(proxied.originAllowed("https://gsi.example.com.evil.example")).isFalse();
    }

    @Test
    void should_refuse_to_build_when_an_allowed_host_is_malformed() {
        assertThatThrownBy(() -> new HostPolicy("127.0.0.1", 8080, List.of("http://x"))).isInstanceOf(IllegalArgumentException.class);
    }
}
