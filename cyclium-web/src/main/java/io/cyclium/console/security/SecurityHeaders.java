package io.cyclium.console.security;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Headers on every answer of the application (console pages, their resources, the API):
 * <ul>
 * <li>{@code Content-Security-Policy}: scripts, styles, images, fonts and connections (the Faces
 * websocket included: {@code 'self'} covers ws: and wss: on this host) from this origin only; no
 * plugins; forms post only here; no page may frame the console ({@code frame-ancestors 'none'},
 * and {@code X-Frame-Options: DENY} for browsers without CSP level 2). Inline scripts and styles
 * stay allowed: Faces and PrimeFaces write {@code onclick} handlers, {@code <script>} blocks for
 * their widgets and {@code style} attributes into every page, and re-run scripts from ajax
 * answers; nonces would cover the blocks but not the attributes. Every value on a page goes
 * through an escaping component (see console.xhtml), which is what keeps injected script out;
 * the policy stops what an injection could load or send elsewhere, and framing;</li>
 * <li>{@code X-Content-Type-Options: nosniff}: a JSON answer is never run as a script or page;</li>
 * <li>{@code Referrer-Policy: same-origin}: console URLs (episode ids, filters) never leave in a
 * Referer; same-origin requests keep their {@code Origin} header, which the API checks.</li>
 * </ul>
 */
@WebFilter(filterName = "SecurityHeaders", urlPatterns = "/*",
        dispatcherTypes = {DispatcherType.REQUEST, DispatcherType.FORWARD, DispatcherType.ERROR})
public class SecurityHeaders extends HttpFilter {

    static final String CONTENT_SECURITY_POLICY = String.join("; ",
            "default-src 'self'",
            "script-src 'self' 'unsafe-inline'",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "font-src 'self' data:",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            "frame-ancestors 'none'");

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        response.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        response.setHeader("X-Frame-Options", "DENY");
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("Referrer-Policy", "same-origin");
        chain.doFilter(request, response);
    }
}
