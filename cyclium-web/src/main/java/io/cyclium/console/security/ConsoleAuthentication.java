package io.cyclium.console.security;

import io.cyclium.config.CycliumConfig;
import io.cyclium.config.IdentitySource;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;
import jakarta.security.enterprise.AuthenticationException;
import jakarta.security.enterprise.AuthenticationStatus;
import jakarta.security.enterprise.authentication.mechanism.http.HttpAuthenticationMechanism;
import jakarta.security.enterprise.authentication.mechanism.http.HttpMessageContext;
import jakarta.security.enterprise.credential.Credential;
import jakarta.security.enterprise.credential.UsernamePasswordCredential;
import jakarta.security.enterprise.identitystore.CredentialValidationResult;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.security.auth.message.callback.CallerPrincipalCallback;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;

/**
 * One mechanism, two faces: pages log in through {@code login.xhtml} (which calls
 * {@code SecurityContext.authenticate} with the form's credential) and keep a session; the API
 * under {@code /api/} takes HTTP Basic on every request and answers 401 with a challenge instead
 * of redirecting (a Basic header is honoured on pages as well, for scripts). Which resources need which role is web.xml's business, not this class's.
 *
 * <p>Only the form login registers a session. There is no {@code @AutoApplySession}: it would
 * register one for every successful Basic request as well, so each API call would leave a new
 * HTTP session behind. Instead the form branch asks for a session itself, and a page request whose
 * session already carries a caller is let through as that caller (what the interceptor did).
 * A page asked for without a session goes to the login page with {@code next=} naming it, so a
 * pasted link opens after the login.
 *
 * <p>The API never takes the session: a browser attaches the session cookie to a request any other
 * site makes it send (a form posted to {@code /api/events}), so a cookie proves nothing about who
 * wrote the request. The console never calls the API itself (its actions are Faces post-backs,
 * guarded by the server-side view state), so there is no console token to accept instead: an API
 * request without an {@code Authorization} header is a 401, session or not, answered in the API's
 * JSON error body. A change sent from another origin is a 403 before any of this
 * ({@link ApiRequestGuard#isCrossOriginChange}).
 *
 * <p>With {@code cyclium.security.identity=oidc} the pages are not this class's: every page
 * request goes to the OpenID Connect mechanism Jakarta Security made from {@link OidcClient}'s
 * definition (the provider's login page, the code flow, the session it keeps), and the API stays
 * here: it takes the provider's access tokens ({@code Authorization: Bearer}, checked on every
 * request by {@link BearerTokens}) and HTTP Basic with the built-in accounts — the browser's
 * session must not reach the API whichever source made it. Two mechanisms are then beans; this one is an alternative with a
 * priority, so it is the one the container resolves and calls, and it hands over to the other.
 */
@ApplicationScoped
@Alternative
@Priority(Interceptor.Priority.APPLICATION)
public class ConsoleAuthentication implements HttpAuthenticationMechanism {

    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(ConsoleAuthentication.class.getName());

    static final String LOGIN_PAGE = "/login.xhtml";

    @Inject
    ConsoleIdentityStore builtIn;

    @Inject
    CycliumConfig config;

    @Inject
    BearerTokens bearerTokens;

    /**
     * Where the OpenID Connect mechanism is found: {@code BeanManager.getBeans} lists every bean of
     * a type, where an {@code Instance} would resolve the ambiguity and offer this alternative only.
     */
    @Inject
    BeanManager beans;

    /** The OpenID Connect mechanism, looked up at its first use (oidc mode only). */
    private volatile HttpAuthenticationMechanism openId;

    /** Failed logins per user and address, on this node (see LoginThrottle). */
    private LoginThrottle throttle;

    @PostConstruct
    void init() {
        throttle = new LoginThrottle(Clock.systemUTC(), config.failedLoginsBeforeDelay());
    }

    /** The request attribute telling the login page how long a throttled caller must wait (seconds). */
    static final String THROTTLED = "io.cyclium.login.throttled";

    @Override
    public AuthenticationStatus validateRequest(HttpServletRequest request, HttpServletResponse response,
                                                HttpMessageContext context) throws AuthenticationException {
        if (isApi(request) && ApiRequestGuard.isCrossOriginChange(request)) {
            // before any challenge: a 401 would make the browser show a login prompt on the other site's page
            try {
                ApiRequestGuard.refuseCrossOrigin(request, response);
            } catch (IOException callerGone) {
                // nothing more to tell it: refused either way
            }
            return AuthenticationStatus.SEND_FAILURE;
        }
        if (byProvider(request)) {
            if (request.getUserPrincipal() == null && context.isProtected()) {
                // the provider's mechanism is about to send the browser to its login page
                PageAfterProviderLogin.remember(request, response);
                if (request.getParameter(PROVIDER_STATE) != null
                        && !request.getRequestURI().equals(request.getContextPath() + LoginTarget.LANDING)) {
                    // Soteria takes any "state" parameter for the provider's answer and, off its redirect URI,
                    // refuses the request: a page's own state filter would never reach the login. Start the
                    // flow from the overview; the noted page opens after it.
                    return context.redirect(request.getContextPath() + LoginTarget.LANDING);
                }
            }
            return openId().validateRequest(request, response, context);
        }
        Credential fromForm = context.getAuthParameters().getCredential();
        if (fromForm instanceof UsernamePasswordCredential form) {
            Optional<Duration> wait = throttle.waitFor(form.getCaller(), request.getRemoteAddr());
            if (wait.isPresent()) {
                request.setAttribute(THROTTLED, seconds(wait.get()));
                return context.responseUnauthorized();
            }
            CredentialValidationResult result = validate(form, request, context);
            if (result.getStatus() == CredentialValidationResult.Status.VALID) {
                context.setRegisterSession(result.getCallerPrincipal().getName(), result.getCallerGroups());
            }
            return context.notifyContainerAboutLogin(result);
        }
        Principal fromSession = request.getUserPrincipal();
        if (fromSession != null && !isApi(request)) {
            return continueSession(fromSession, context);
        }
        String header = request.getHeader("Authorization");
        if (header != null && isApi(request) && header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return bearer(header.substring(7).trim(), request, response, context);
        }
        if (header != null && header.regionMatches(true, 0, "Basic ", 0, 6)) {
            // scripts may read pages too; a wrong password is a 401 wherever it is sent
            UsernamePasswordCredential basic = basic(header.substring(6).trim());
            Optional<Duration> wait = basic == null ? Optional.empty() : throttle.waitFor(basic.getCaller(), request.getRemoteAddr());
            if (wait.isPresent()) {
                return throttled(response, context, wait.get());
            }
            CredentialValidationResult result = basic == null ? CredentialValidationResult.INVALID_RESULT
                    : validate(basic, request, context);
            return result.getStatus() == CredentialValidationResult.Status.VALID
                    ? context.notifyContainerAboutLogin(result) : challenge(response, context, ApiRefusals.WRONG_CREDENTIALS);
        }
        if (!context.isProtected()) {
            return context.doNothing();
        }
        return isApi(request) ? challenge(response, context, ApiRefusals.UNAUTHORIZED) : context.redirect(loginUrl(request));
    }

    @Override
    public AuthenticationStatus secureResponse(HttpServletRequest request, HttpServletResponse response,
            HttpMessageContext context) throws AuthenticationException {
        return byProvider(request) ? openId().secureResponse(request, response, context)
                : HttpAuthenticationMechanism.super.secureResponse(request, response, context);
    }

    @Override
    public void cleanSubject(HttpServletRequest request, HttpServletResponse response, HttpMessageContext context) {
        if (byProvider(request)) {
            openId().cleanSubject(request, response, context);
        } else {
            HttpAuthenticationMechanism.super.cleanSubject(request, response, context);
        }
    }

    /** A page request in oidc mode: the provider's login decides, not this class. */
    private boolean byProvider(HttpServletRequest request) {
        return config.identity() == IdentitySource.OIDC && !isApi(request);
    }

    private HttpAuthenticationMechanism openId() {
        HttpAuthenticationMechanism found = openId;
        if (found == null) {
            List<Bean<?>> others = beans.getBeans(HttpAuthenticationMechanism.class, Any.Literal.INSTANCE).stream()
                    .filter(b -> !b.getTypes().contains(ConsoleAuthentication.class)).toList();
            if (others.size() != 1) {
                throw new IllegalStateException("cyclium.security.identity=oidc needs exactly one OpenID Connect mechanism"
                        + " besides ConsoleAuthentication (made from OidcClient's definition), found " + others);
            }
            Bean<?> bean = others.get(0);
            // application scoped on the server's side: a client proxy every caller may share
            found = (HttpAuthenticationMechanism) beans.getReference(bean, HttpAuthenticationMechanism.class,
                    beans.createCreationalContext(bean));
            openId = found;
        }
        return found;
    }

    /**
     * The credential checked by the configured source — the built-in accounts or the server's realm —
     * and the outcome noted for the throttle: a failure makes the pair wait, a success clears it.
     */
    private CredentialValidationResult validate(UsernamePasswordCredential credential, HttpServletRequest request,
            HttpMessageContext context) {
        CredentialValidationResult result = config.identity() == IdentitySource.SERVER
                // the built-in accounts asked directly: through the IdentityStoreHandler every API
                // request paid a reflective dispatch (IdentityStore.validate(Credential) binds a
                // method handle per call), about a third of the mechanism's samples in a profile
                ? ServerRealm.validate(credential, context) : builtIn.validate(credential);
        if (result.getStatus() == CredentialValidationResult.Status.VALID) {
            throttle.succeeded(credential.getCaller(), request.getRemoteAddr());
        } else {
            throttle.failed(credential.getCaller(), request.getRemoteAddr());
        }
        return result;
    }

    /**
     * An API call with the provider's access token: checked on every request (no session), its
     * failures counted like failed logins — per address, since nothing in a bad token can be
     * believed to name a user — and answered 401 with the reason.
     */
    private AuthenticationStatus bearer(String token, HttpServletRequest request, HttpServletResponse response,
            HttpMessageContext context) {
        String address = request.getRemoteAddr();
        Optional<Duration> wait = throttle.waitFor(BEARER, address);
        if (wait.isPresent()) {
            return throttled(response, context, wait.get());
        }
        CredentialValidationResult result;
        try {
            result = bearerTokens.validate(token);
        } catch (TokenRejected rejected) {
            throttle.failed(BEARER, address);
            return refuseToken(response, context, rejected.getMessage());
        } catch (ProviderUnreachable down) {
            LOG.warning(() -> "bearer token not checked: " + down.getMessage());
            try {
                ApiRefusals.write(response, HttpServletResponse.SC_SERVICE_UNAVAILABLE, "the bearer token could not be"
                        + " checked: " + down.getMessage());
            } catch (IOException callerGone) {
                return context.responseUnauthorized();
            }
            return AuthenticationStatus.SEND_FAILURE;
        }
        throttle.succeeded(BEARER, address);
        return context.notifyContainerAboutLogin(result);
    }

    /** The parameter the provider's answer carries (OpenID Connect's {@code state}). */
    private static final String PROVIDER_STATE = "state";

    /** The throttle's user for bearer tokens: one count per address. */
    private static final String BEARER = "\0bearer token";

    /** 401 with a Bearer challenge (RFC 6750's invalid_token) and the reason in the API's JSON error body. */
    private static AuthenticationStatus refuseToken(HttpServletResponse response, HttpMessageContext context, String why) {
        response.setHeader("WWW-Authenticate", "Bearer realm=\"cyclium\", error=\"invalid_token\", error_description=\""
                + why.replaceAll("[^\\x20-\\x7e]|[\"\\\\]", "'") + "\"");
        try {
            ApiRefusals.write(response, HttpServletResponse.SC_UNAUTHORIZED, why);
        } catch (IOException e) {
            return context.responseUnauthorized();
        }
        return AuthenticationStatus.SEND_FAILURE;
    }

    /** 429 with Retry-After: this user from this address failed too often; the password is not even checked. */
    private static AuthenticationStatus throttled(HttpServletResponse response, HttpMessageContext context, Duration wait) {
        response.setHeader("Retry-After", Long.toString(seconds(wait)));
        try {
            ApiRefusals.write(response, 429, "too many failed logins for this user from this address: try again in "
                    + seconds(wait) + " s");
        } catch (IOException e) {
            return context.responseUnauthorized();
        }
        return AuthenticationStatus.SEND_FAILURE;
    }

    private static long seconds(Duration wait) {
        return Math.max(1, (wait.toMillis() + 999) / 1000);
    }

    /** The caller the container restored from the session registered at the form login. */
    private static AuthenticationStatus continueSession(Principal caller, HttpMessageContext context) {
        try {
            context.getHandler().handle(new Callback[] {new CallerPrincipalCallback(context.getClientSubject(), caller)});
        } catch (IOException | UnsupportedCallbackException e) {
            throw new IllegalStateException("the container refused the session's caller " + caller.getName(), e);
        }
        return AuthenticationStatus.SUCCESS;
    }

    /** The login page, with the page asked for (path and query, inside this application) as {@code next}. */
    static String loginUrl(HttpServletRequest request) {
        String login = request.getContextPath() + LOGIN_PAGE;
        if (!"GET".equals(request.getMethod())) {
            return login;
        }
        String wanted = request.getRequestURI().substring(request.getContextPath().length())
                + (request.getQueryString() == null ? "" : "?" + request.getQueryString());
        return LoginTarget.isSafe(wanted) && !wanted.startsWith(LOGIN_PAGE)
                ? login + "?next=" + URLEncoder.encode(wanted, StandardCharsets.UTF_8) : login;
    }

    private static boolean isApi(HttpServletRequest request) {
        return ApiRefusals.isApi(request);
    }

    /**
     * 401 with a Basic challenge and the API's JSON error body, written here and committed: the
     * container's own 401 page is HTML, and a committed response is left as it is when the
     * mechanism reports the failure.
     */
    private static AuthenticationStatus challenge(HttpServletResponse response, HttpMessageContext context, String why) {
        response.setHeader("WWW-Authenticate", "Basic realm=\"cyclium\", charset=\"UTF-8\"");
        try {
            ApiRefusals.write(response, HttpServletResponse.SC_UNAUTHORIZED, why);
        } catch (IOException e) {
            // the caller went away: the status is all it would have read
            return context.responseUnauthorized();
        }
        return AuthenticationStatus.SEND_FAILURE;
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
