package io.cassandragsi.conf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A throwaway certificate authority and what local nodes need for client-to-node TLS, made with
 * the JDK's {@code keytool} (no openssl, nothing downloaded): a node key pair whose certificate the
 * CA signs for the nodes' addresses and {@code localhost}, the node keystore, a truststore holding
 * the CA certificate for clients, and that certificate in PEM for cqlsh. The CA's private key is
 * deleted once the node certificate is signed: nothing else can be signed with it. Passwords are
 * random and reach keytool through its environment, never its command line. The directory and
 * every file in it are readable by the owner only.
 *
 * @param dir where the files are
 * @param nodeKeystore PKCS12 keystore with the node's key and certificate chain
 * @param nodeKeystorePassword its password (also the key's)
 * @param truststore PKCS12 truststore with the CA certificate, for clients
 * @param truststorePassword its password
 * @param caPem the CA certificate in PEM (cqlsh's {@code SSL_CERTFILE})
 */
public record TlsMaterial(
        Path dir,
        Path nodeKeystore,
        String nodeKeystorePassword,
        Path truststore,
        String truststorePassword,
        Path caPem) {

    /** Certificates are valid this long: enough for any local run. */
    static final int VALIDITY_DAYS = 365;

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final long KEYTOOL_TIMEOUT_SECONDS = 60;

    /**
     * Makes the CA, the node certificate (with an IP subject alternative name for each address, and
     * {@code localhost}), the node keystore and the truststore in {@code dir}, which must not hold
     * them already.
     */
    public static TlsMaterial generate(Path tlsDir, List<InetAddress> addresses) {
        Path dir = tlsDir.toAbsolutePath().normalize();
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException("at least one node address is needed for the certificate");
        }
        try {
            Files.createDirectories(dir);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            TlsMaterial m =
                    new TlsMaterial(
                            dir,
                            dir.resolve("node-keystore.p12"),
                            randomSecret(),
                            dir.resolve("truststore.p12"),
                            randomSecret(),
                            dir.resolve("ca.pem"));
            for (Path p : List.of(m.nodeKeystore, m.truststore, m.caPem)) {
                if (Files.exists(p)) {
                    throw new IllegalStateException(p + " exists already; TLS material is made in a fresh directory");
                }
            }
            m.make(addresses);
            return m;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot make TLS material in " + dir, e);
        }
    }

    /** A random secret of 32 URL-safe characters (192 bits); safe in YAML and CQL string literals. */
    public static String randomSecret() {
        byte[] bytes = new byte[24];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The subject alternative names of the node certificate, in keytool's {@code -ext} syntax. */
    static String subjectAlternativeNames(List<InetAddress> addresses) {
        return "SAN="
                + addresses.stream().map(a -> "ip:" + a.getHostAddress()).collect(Collectors.joining(","))
                + ",dns:localhost";
    }

    /** {@code client_encryption_options}: TLS required on the native port, no client certificates. */
    String clientEncryption() {
        return "{enabled: true, optional: false, keystore: '" + nodeKeystore().toAbsolutePath()
                + "', keystore_password: '" + nodeKeystorePassword() + "', truststore: '"
                + truststore().toAbsolutePath() + "', truststore_password: '"
                + truststorePassword() + "', store_type: PKCS12, require_client_auth: false}";
    }

    private void make(List<InetAddress> addresses) throws IOException {
        Path ca = dir.resolve("ca.p12");
        Path csr = dir.resolve("node.csr");
        Path signed = dir.resolve("node.crt");
        String caPassword = randomSecret();
        Map<String, String> env =
                Map.of("GSI_CA_PASS", caPassword, "GSI_NODE_PASS", nodeKeystorePassword,
                        "GSI_TRUST_PASS", truststorePassword);
        String validity = Integer.toString(VALIDITY_DAYS);
        try {
            keytool(env, "-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1",
                    "-dname", "CN=cassandra-gsi throwaway CA", "-ext", "bc:c", "-validity", validity,
                    "-storetype", "PKCS12", "-keystore", ca.toString(), "-storepass:env", "GSI_CA_PASS");
            keytool(env, "-exportcert", "-rfc", "-alias", "ca", "-keystore", ca.toString(),
                    "-storepass:env", "GSI_CA_PASS", "-file", caPem.toString());
            keytool(env, "-genkeypair", "-alias", "node", "-keyalg", "EC", "-groupname", "secp256r1",
                    "-dname", "CN=cassandra-gsi local node", "-validity", validity,
                    "-storetype", "PKCS12", "-keystore", nodeKeystore.toString(),
                    "-storepass:env", "GSI_NODE_PASS");
            keytool(env, "-certreq", "-alias", "node", "-keystore", nodeKeystore.toString(),
                    "-storepass:env", "GSI_NODE_PASS", "-file", csr.toString());
            keytool(env, "-gencert", "-rfc", "-alias", "ca", "-keystore", ca.toString(),
                    "-storepass:env", "GSI_CA_PASS", "-infile", csr.toString(), "-outfile", signed.toString(),
                    "-validity", validity, "-ext", subjectAlternativeNames(addresses),
                    "-ext", "EKU=serverAuth", "-ext", "KU=digitalSignature");
            // the reply's chain is built from a trusted CA entry in the same keystore
            keytool(env, "-importcert", "-noprompt", "-alias", "ca", "-keystore", nodeKeystore.toString(),
                    "-storepass:env", "GSI_NODE_PASS", "-file", caPem.toString());
            keytool(env, "-importcert", "-alias", "node", "-keystore", nodeKeystore.toString(),
                    "-storepass:env", "GSI_NODE_PASS", "-file", signed.toString());
            keytool(env, "-importcert", "-noprompt", "-alias", "ca", "-storetype", "PKCS12",
                    "-keystore", truststore.toString(), "-storepass:env", "GSI_TRUST_PASS",
                    "-file", caPem.toString());
        } finally {
            Files.deleteIfExists(ca);
            Files.deleteIfExists(csr);
            Files.deleteIfExists(signed);
        }
        for (Path p : List.of(nodeKeystore, truststore, caPem)) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
        }
    }

    private void keytool(Map<String, String> env, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        try {
            if (!p.waitFor(KEYTOOL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new LocalClusterException("keytool " + args[0] + " ran over " + KEYTOOL_TIMEOUT_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new LocalClusterException("Interrupted while running keytool " + args[0], e);
        }
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (p.exitValue() != 0) {
            throw new LocalClusterException("keytool " + args[0] + " failed (exit " + p.exitValue() + "): " + output);
        }
    }

    /** Never prints the passwords. */
    @Override
    public String toString() {
        return "TlsMaterial[dir=" + dir + "]";
    }
}
