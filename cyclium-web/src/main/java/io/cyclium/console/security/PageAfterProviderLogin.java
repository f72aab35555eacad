package io.cyclium.console.security;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * In {@code oidc} mode, the page a caller first asked for opens after the provider's login, as it
 * does after the login form: {@link ConsoleAuthentication} notes the page (path and query inside
 * this application) in a short-lived cookie before the provider's mechanism sends the browser away,
 * and this filter, on the overview where the provider's flow ends, sends the now logged-in caller
 * on to it once. Soteria's own {@code redirectToOriginalResource} fails the page it restores on
 * Payara 6 (a NullPointerException in its saved request), hence this.
 *
 * <p>A cookie rather than the HTTP session: the login registers a new session for the caller, and
 * what the old one held is not promised to survive that on every server. {@code SameSite=Lax},
 * because the way back from the provider is a navigation another site starts (a Strict cookie would
 * stay behind); {@code HttpOnly}; at most {@link #MAX_AGE_S} s. Its value is only ever a path inside
 * this application ({@link LoginTarget#isSafe}, checked when it is written and again when it is
 * read): whoever sets it can at most choose which console page opens.
 */
@WebFilter(filterName = "PageAfterProviderLogin", urlPatterns = LoginTarget.LANDING)
public class PageAfterProviderLogin extends HttpFilter {

    static final String COOKIE = "cyclium_after_login";
    static final int MAX_AGE_S = 600;

    /** Notes {@code request}'s page for after the login, when it is one worth returning to. */
    static void remember(HttpServletRequest request, HttpServletResponse response) {
        if (!"GET".equals(request.getMethod())) {
            return;
        }
        String wanted = request.getRequestURI().substring(request.getContextPath().length())
                + (request.getQueryString() == null ? "" : "?" + request.getQueryString());
        String path = wanted.split("\\?", 2)[0];
        if (!LoginTarget.isSafe(wanted) || path.equals("/") || path.equals(LoginTarget.LANDING)
                || path.startsWith(ConsoleAuthentication.LOGIN_PAGE)) {
            return;
        }
        response.addHeader("Set-Cookie", cookie(request, URLEncoder.encode(wanted, StandardCharsets.UTF_8), MAX_AGE_S));
    }

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        String noted = request.getUserPrincipal() == null ? null : noted(request);
        if (noted == null) {
            chain.doFilter(request, response);
            return;
        }
        response.addHeader("Set-Cookie", cookie(request, "", 0));
        String wanted = URLDecoder.decode(noted, StandardCharsets.UTF_8);
        if (!LoginTarget.isSafe(wanted)) {
            chain.doFilter(request, response);
            return;
        }
        response.sendRedirect(request.getContextPath() + wanted);
    }

    private static String noted(HttpServletRequest request) {
        Cookie[] cookies = request.getCookies();
        if (cookies == null) {
            return null;
        }
        for (Cookie c : cookies) {
            if (COOKIE.equals(c.getName()) && !c.getValue().isEmpty()) {
                return c.getValue();
            }
        }
        return null;
    }

    /** The header itself: jakarta.servlet.http.Cookie has no SameSite on every server this runs on. */
    private static String cookie(HttpServletRequest request, String value, int maxAge) {
        String path = request.getContextPath().isEmpty() ? "/" : request.getContextPath();
        return COOKIE + "=" + value + "; Path=" + path + "; Max-Age=" + maxAge + "; HttpOnly; SameSite=Lax"
                + (request.isSecure() ? "; Secure" : "");
    }
}
