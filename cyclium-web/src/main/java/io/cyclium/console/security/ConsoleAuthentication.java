package io.cyclium.console.security;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.security.enterprise.AuthenticationStatus;
import jakarta.security.enterprise.authentication.mechanism.http.AutoApplySession;
import jakarta.security.enterprise.authentication.mechanism.http.HttpAuthenticationMechanism;
import jakarta.security.enterprise.authentication.mechanism.http.HttpMessageContext;
import jakarta.security.enterprise.credential.Credential;
import jakarta.security.enterprise.credential.UsernamePasswordCredential;
import jakarta.security.enterprise.identitystore.CredentialValidationResult;
import jakarta.security.enterprise.identitystore.IdentityStoreHandler;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * One mechanism, two faces: pages log in through {@code login.xhtml} (which calls
 * {@code SecurityContext.authenticate} with the form's credential) and keep a session; the API
 * under {@code /api/} takes HTTP Basic on every request and answers 401 with a challenge instead
 * of redirecting (a Basic header is honoured on pages as well, for scripts). Which resources need which role is web.xml's business, not this class's.
 */
@ApplicationScoped
@AutoApplySession
public class ConsoleAuthentication implements HttpAuthenticationMechanism {

    static final String LOGIN_PAGE = "/login.xhtml";

    @Inject
    IdentityStoreHandler identities;

    @Override
    public AuthenticationStatus validateRequest(HttpServletRequest request, HttpServletResponse response,
                                                HttpMessageContext context) {
        Credential fromForm = context.getAuthParameters().getCredential();
        if (fromForm != null) {
            return context.notifyContainerAboutLogin(identities.validate(fromForm));
        }
        String header = request.getHeader("Authorization");
        if (header != null && header.regionMatches(true, 0, "Basic ", 0, 6)) {
            // scripts may read pages too; a wrong password is a 401 wherever it is sent
            UsernamePasswordCredential basic = basic(header.substring(6).trim());
            CredentialValidationResult result = basic == null ? CredentialValidationResult.INVALID_RESULT : identities.validate(basic);
            return result.getStatus() == CredentialValidationResult.Status.VALID
                    ? context.notifyContainerAboutLogin(result) : challenge(response, context);
        }
        if (!context.isProtected()) {
            return context.doNothing();
        }
        return isApi(request) ? challenge(response, context) : context.redirect(request.getContextPath() + LOGIN_PAGE);
    }

    private static boolean isApi(HttpServletRequest request) {
        return request.getRequestURI().startsWith(request.getContextPath() + "/api/");
    }

    private static AuthenticationStatus challenge(HttpServletResponse response, HttpMessageContext context) {
        response.setHeader("WWW-Authenticate", "Basic realm=\"cyclium\", charset=\"UTF-8\"");
        return context.responseUnauthorized();
    }

    /** {@code user:password} from a Basic header, or null when it is not one. */
    private static UsernamePasswordCredential basic(String encoded) {
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException notBase64) {
            return null;
        }
        int colon = decoded.indexOf(':');
        return colon < 0 ? null : new UsernamePasswordCredential(decoded.substring(0, colon), decoded.substring(colon + 1));
    }
}
