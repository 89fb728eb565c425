package io.cassandragsi.repair.config;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Collections;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * The HTTP API's TLS context from {@code http.tls} (docs/configuration.md): the JDK's own key
 * store loading (PKCS12 or JKS, told apart by the file) and key manager, nothing hand-made. Built
 * once when the configuration is validated, so that a wrong password or a store without a private
 * key is an error naming the key at start, not a handshake failure at the first client.
 */
public final class ServerTls {
    private ServerTls() {}

    /** The context serving the store's key; {@link IllegalArgumentException} saying what is wrong with the store. */
    public static SSLContext context(HttpConfig.Tls tls) {
        char[] password = tls.password().toCharArray();
        KeyStore store;
        try {
            store = KeyStore.getInstance(tls.keystore().toFile(), password);
        } catch (IOException e) {
            boolean badPassword = e.getCause() instanceof java.security.UnrecoverableKeyException;
            throw new IllegalArgumentException(tls.keystore() + (badPassword ? ": the password does not open it"
                    : " cannot be read as a PKCS12 or JKS key store (" + e.getMessage() + ")"));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(tls.keystore() + " is not a PKCS12 or JKS key store (" + e.getMessage() + ")");
        }
        try {
            int keys = 0;
            for (String alias : Collections.list(store.aliases())) {
                keys += store.isKeyEntry(alias) ? 1 : 0;
            }
            if (keys != 1) {
                throw new IllegalArgumentException(tls.keystore() + " holds " + keys + " private keys; the API's store must hold exactly one"
                        + " (its key and certificate chain)");
            }
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(store, password);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(kmf.getKeyManagers(), null, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(tls.keystore() + ": its private key cannot be used with the store's password ("
                    + e.getMessage() + ")");
        }
    }
}
