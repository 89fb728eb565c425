package io.cassandragsi.conf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the JDK's keytool (a process, hence an IT; no Cassandra node). */
class TlsMaterialIT {
    @TempDir
    Path work;

    @Test
    void should_sign_the_node_certificate_for_every_address_with_a_ca_whose_key_is_gone() throws Exception {
        Path dir = work.resolve("tls");
        TlsMaterial tls =
                TlsMaterial.generate(
                        dir, List.of(InetAddress.getByName("127.0.4.1"), InetAddress.getByName("127.0.4.2")));

        KeyStore node = load(tls.nodeKeystore(), tls.nodeKeystorePassword());
        Certificate[] chain = node.getCertificateChain("node");
        assertThat(chain).hasSize(2);
        X509Certificate leaf = (X509Certificate) chain[0];
        X509Certificate ca;
        try (InputStream in = Files.newInputStream(tls.caPem())) {
            ca = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
        leaf.verify(ca.getPublicKey());
        leaf.checkValidity();
        assertThat(chain[1]).isEqualTo(ca);
        assertThat(ca.getBasicConstraints()).isGreaterThanOrEqualTo(0);
        assertThat(leaf.getSubjectAlternativeNames().stream().map(n -> n.get(1).toString())
                .collect(Collectors.toList()))
                .containsExactlyInAnyOrder("127.0.4.1", "127.0.4.2", "localhost");
        assertThat(leaf.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
        assertThat(node.getKey("node", tls.nodeKeystorePassword().toCharArray())).isNotNull();

        KeyStore trust = load(tls.truststore(), tls.truststorePassword());
        assertThat(trust.getCertificate("ca")).isEqualTo(ca);
        assertThat(trust.isKeyEntry("ca")).isFalse();

        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()).collect(Collectors.toList()))
                    .containsExactlyInAnyOrder("node-keystore.p12", "truststore.p12", "ca.pem");
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)))
                .isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tls.nodeKeystore())))
                .isEqualTo("rw-------");
        assertThat(tls.nodeKeystorePassword()).isNotEqualTo(tls.truststorePassword()).hasSize(32);
        assertThat(tls.toString()).doesNotContain(tls.nodeKeystorePassword(), tls.truststorePassword());
    }

    @Test
    void should_refuse_a_directory_that_holds_material_already() throws Exception {
        Path dir = work.resolve("tls");
        TlsMaterial.generate(dir, List.of(InetAddress.getByName("127.0.0.1")));
        assertThatThrownBy(() -> TlsMaterial.generate(dir, List.of(InetAddress.getByName("127.0.0.1"))))
                .hasMessageContaining("exists already");
    }

    private static KeyStore load(Path file, String password) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            ks.load(in, password.toCharArray());
        }
        return ks;
    }
}
