package io.cyclium.console.security;

import io.cyclium.config.CycliumConfig;
import io.cyclium.config.IdentitySource;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.security.enterprise.credential.UsernamePasswordCredential;
import jakarta.security.enterprise.identitystore.CredentialValidationResult;
import jakarta.security.enterprise.identitystore.IdentityStore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;

/**
 * The console's two identities: {@code admin} (role cyclium-admin) with
 * {@code cyclium.console.admin-password}, and {@code viewer} (role cyclium-viewer) only when
 * {@code cyclium.console.viewer-password} is set. Without an admin password one is generated at
 * boot and printed once, to the log and to stderr, so a node is never open with a known password.
 * A production server can replace this store with its own realm (see docs/security.md).
 */
@ApplicationScoped
public class ConsoleIdentityStore implements IdentityStore {

    static final String ADMIN_USER = "admin";
    static final String VIEWER_USER = "viewer";
    private static final Logger LOG = Logger.getLogger(ConsoleIdentityStore.class.getName());

    @Inject
    CycliumConfig config;

    private byte[] adminPassword;
    private Optional<byte[]> viewerPassword;

    @PostConstruct
    void init() {
        if (config.identity() == IdentitySource.SERVER) {
            // cyclium.security.identity=server: the server's realm checks every login; these accounts do not exist
            LOG.info("Cyclium console: users and roles come from the server's realm (cyclium.security.identity=server);"
                    + " the built-in admin and viewer accounts are off");
            adminPassword = null;
            viewerPassword = Optional.empty();
            return;
        }
        if (config.identity() == IdentitySource.OIDC) {
            LOG.info("Cyclium console: pages log in through the OpenID Connect provider " + config.oidc().map(o -> o.issuer().toString())
                    .orElse("?") + " (cyclium.security.identity=oidc); the API keeps HTTP Basic with the built-in accounts");
        }
        String admin = config.adminPassword().orElseGet(() -> {
            byte[] random = new byte[18];
            new SecureRandom().nextBytes(random);
            String generated = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
            String line = "Cyclium console: no cyclium.console.admin-password (CYCLIUM_ADMIN_PASSWORD) set;"
                    + " log in as user admin with the generated password " + generated
                    + " (it changes at every boot)";
            LOG.warning(line);
            System.err.println(line);
            return generated;
        });
        adminPassword = admin.getBytes(StandardCharsets.UTF_8);
        viewerPassword = config.viewerPassword().map(p -> p.getBytes(StandardCharsets.UTF_8));
    }

    /** Creates the store at boot, so a generated password is printed before anyone needs it. */
    void atBoot(@Observes @Initialized(ApplicationScoped.class) Object ignored) {
        // Observing is enough: the container creates this bean (and runs init) to deliver the event.
    }

    public CredentialValidationResult validate(UsernamePasswordCredential credential) {
        byte[] given = credential.getPasswordAsString().getBytes(StandardCharsets.UTF_8);
        String caller = credential.getCaller();
        // MessageDigest.isEqual takes the same time wherever the first difference is.
        if (ADMIN_USER.equals(caller) && adminPassword != null && MessageDigest.isEqual(adminPassword, given)) {
            return new CredentialValidationResult(ADMIN_USER, Set.of(ConsoleRoles.ADMIN));
        }
        if (VIEWER_USER.equals(caller) && viewerPassword.isPresent() && MessageDigest.isEqual(viewerPassword.get(), given)) {
            return new CredentialValidationResult(VIEWER_USER, Set.of(ConsoleRoles.VIEWER));
        }
        return CredentialValidationResult.INVALID_RESULT;
    }
}
