package io.cyclium.console.security;

import jakarta.security.auth.message.callback.PasswordValidationCallback;
import jakarta.security.enterprise.authentication.mechanism.http.HttpMessageContext;
import jakarta.security.enterprise.credential.UsernamePasswordCredential;
import jakarta.security.enterprise.identitystore.CredentialValidationResult;
import java.io.IOException;
import java.security.Principal;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.logging.Logger;
import javax.security.auth.Subject;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;

/**
 * Checks a user and password against the server's own realm ({@code cyclium.security.identity=server}):
 * the Jakarta Authentication {@link PasswordValidationCallback}, which asks the container — not
 * this application — to validate them (Payara: the default realm, file, LDAP or JDBC; WildFly: the
 * application's security domain). On success the container has put the caller and the realm's
 * groups into the client subject; the groups are read back from there, so the rest of the
 * mechanism (session registration, the roles web.xml asks for) works as with the built-in store.
 */
final class ServerRealm {

    private static final Logger LOG = Logger.getLogger(ServerRealm.class.getName());

    private ServerRealm() {
    }

    static CredentialValidationResult validate(UsernamePasswordCredential credential, HttpMessageContext context) {
        Subject subject = context.getClientSubject();
        Set<Principal> before = Set.copyOf(subject.getPrincipals());
        PasswordValidationCallback check = new PasswordValidationCallback(subject, credential.getCaller(),
                credential.getPassword().getValue());
        try {
            context.getHandler().handle(new Callback[] {check});
        } catch (UnsupportedCallbackException e) {
            throw new IllegalStateException("cyclium.security.identity=server, but this server does not validate passwords"
                    + " for applications (no PasswordValidationCallback): use builtin, see docs/security.md#identity", e);
        } catch (IOException e) {
            throw new IllegalStateException("the server's realm could not check user " + credential.getCaller(), e);
        } finally {
            check.clearPassword();
        }
        if (!check.getResult()) {
            return CredentialValidationResult.INVALID_RESULT;
        }
        // The realm's groups are the principals it added besides the caller's own.
        Set<String> groups = new LinkedHashSet<>();
        for (Principal p : subject.getPrincipals()) {
            if (!before.contains(p) && !p.getName().equals(credential.getCaller())) {
                groups.add(p.getName());
            }
        }
        LOG.fine(() -> "server realm: " + credential.getCaller() + " in groups " + groups);
        return new CredentialValidationResult(credential.getCaller(), groups);
    }
}
