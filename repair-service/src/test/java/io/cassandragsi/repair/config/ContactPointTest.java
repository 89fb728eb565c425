package io.cassandragsi.repair.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ContactPointTest {

    @ParameterizedTest
    @CsvSource({
        "127.0.3.1:9042, 127.0.3.1, 9042, 127.0.3.1:9042",
        "db.example.com, db.example.com, 9042, db.example.com:9042",
        "'[::1]:19042', ::1, 19042, '[::1]:19042'",
        "'[fd00::1]', fd00::1, 9042, '[fd00::1]:9042'"
    })
    void should_parse_host_and_port_when_written_as_the_driver_does(String text, String host, int port, String printed) {
        ContactPoint cp = ContactPoint.parse(text);
        assertThat(cp).isEqualTo(new ContactPoint(host, port));
        assertThat(cp.toString()).isEqualTo(printed);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ":9042", "host:", "host:abc", "host:0", "host:70000", "::1:9042", "[::1"})
    void should_reject_when_not_host_and_port(String text) {
        assertThatThrownBy(() -> ContactPoint.parse(text)).isInstanceOf(IllegalArgumentException.class);
    }
}
