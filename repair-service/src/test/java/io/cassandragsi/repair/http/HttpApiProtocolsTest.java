package io.cassandragsi.repair.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cassandragsi.conf.TlsMaterial;
import io.cassandragsi.repair.config.ConfigException;
import io.cassandragsi.repair.config.ConfigLoader;
import io.cassandragsi.repair.config.HttpConfig;
import io.cassandragsi.repair.read.IndexReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The protocols the HTTP API speaks (docs/design.md section 8.8), on a real {@link HttpApi} on
 * loopback with reads answered at once: HTTP/1.1, HTTP/2 in cleartext (upgrade and prior
 * knowledge), and with {@code http.tls} HTTPS with HTTP/2 chosen by ALPN; many reads multiplexed
 * over one HTTP/2 connection. The key store is made for each run by {@code TlsMaterial}, as for
 * {@code gsi up --secure}.
 */
class HttpApiProtocolsTest {
    private static final String READ = "/v1/ks/t//by_n/42";

    @TempDir
    static Path dir;

    /** A CA, the API's key store signed by it for loopback and {@code localhost}, and a trust store with the CA: as {@code gsi up --secure} makes them. */
    private static TlsMaterial tls;
    private static Path keystore;
    private final List<HttpApi> apis = new ArrayList<>();

    @BeforeAll
    static void makeKeystore() {
        tls = TlsMaterial.generate(dir.resolve("tls"), List.of(java.net.InetAddress.getLoopbackAddress()));
        keystore = tls.nodeKeystore();
    }

    @AfterEach
    void close() {
        apis.forEach(HttpApi::close);
    }

    private HttpApi api(HttpConfig.Tls tls) {
        HttpApi.Reads reads = q -> CompletableFuture.completedFuture(new IndexReader.Page(List.of(Map.of("n", q.values().get(0))), null));
        HttpApi api = new HttpApi(new HttpConfig("127.0.0.1", 0, null, false, List.of(), null, tls), HttpApi.Timeouts.DEFAULTS, reads,
                Map::of, () -> "", null);
        apis.add(api);
        return api;
    }

    private static HttpResponse<String> get(HttpClient client, String url) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void should_answer_http_1_1_and_upgrade_to_http_2_in_cleartext() throws Exception {
        HttpApi api = api(null);
        String url = "http://127.0.0.1:" + api.port() + READ;
        HttpResponse<String> h1 = get(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(), url);
        assertThat(h1.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        assertThat(h1.statusCode()).isEqualTo(200);

        HttpClient h2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        HttpResponse<String> first = get(h2, url); // answered over HTTP/2 after the h2c upgrade
        assertThat(first.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).contains("\"42\"");
    }

    @Test
    void should_speak_http_2_with_prior_knowledge() throws Exception {
        HttpApi api = api(null);
        try (Socket s = new Socket("127.0.0.1", api.port())) {
            s.setSoTimeout(5_000);
            OutputStream out = s.getOutputStream();
            out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0}); // an empty SETTINGS frame
            out.flush();
            InputStream in = s.getInputStream();
            byte[] header = in.readNBytes(9);
            assertThat(header).as("a frame header answers the preface").hasSize(9);
            assertThat(header[3]).as("the server's first frame is SETTINGS (type 4)").isEqualTo((byte) 4);
        }
    }

    @Test
    void should_multiplex_many_reads_over_one_http_2_connection() throws Exception {
        HttpApi api = api(null);
        HttpClient h2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        get(h2, "http://127.0.0.1:" + api.port() + READ); // the upgrade: later requests share its connection
        List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            inFlight.add(h2.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + "/v1/ks/t//by_n/" + i)).GET().build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        for (int i = 0; i < inFlight.size(); i++) {
            HttpResponse<String> r = inFlight.get(i).get(30, TimeUnit.SECONDS);
            assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).as("each stream gets its own answer").contains("\"" + i + "\"");
        }
    }

    @Test
    void should_serve_https_with_http_2_by_alpn_when_tls_is_configured() throws Exception {
        HttpApi api = api(new HttpConfig.Tls(keystore, tls.nodeKeystorePassword()));
        String url = "https://localhost:" + api.port() + READ;
        HttpClient h2 = HttpClient.newBuilder().sslContext(trusting()).version(HttpClient.Version.HTTP_2).build();
        HttpResponse<String> r = get(h2, url);
        assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(r.statusCode()).isEqualTo(200);
        HttpResponse<String> h1 = get(HttpClient.newBuilder().sslContext(trusting()).version(HttpClient.Version.HTTP_1_1).build(), url);
        assertThat(h1.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        assertThat(h1.statusCode()).isEqualTo(200);
        assertThatThrownBy(() -> get(HttpClient.newHttpClient(), "http://localhost:" + api.port() + READ))
                .as("plain HTTP is not answered on the TLS port").isInstanceOf(IOException.class);
    }

    @Test
    void should_refuse_a_key_store_whose_password_is_wrong_when_the_config_is_read() throws Exception {
        Path file = dir.resolve("wrong-password.yaml");
        Files.writeString(file, "http:\n  tls:\n    keystore:\n      path: " + keystore + "\n      password: not-the-password\n");
        assertThatThrownBy(() -> ConfigLoader.load(file)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("key 'http.tls.keystore'").hasMessageContaining("the password does not open it");
        Path good = dir.resolve("good.yaml");
        Files.writeString(good, "http:\n  tls:\n    keystore:\n      path: " + keystore + "\n      password: " + tls.nodeKeystorePassword() + "\n");
        HttpConfig http = ConfigLoader.load(good).http();
        assertThat(http.scheme()).isEqualTo("https");
        assertThat(http.toString()).doesNotContain(tls.nodeKeystorePassword());
    }

    /** A client context trusting the CA that signed the API's certificate. */
    private static SSLContext trusting() throws Exception {
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(KeyStore.getInstance(tls.truststore().toFile(), tls.truststorePassword().toCharArray()));
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }
}
