package io.cyclium.console.security;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.util.Locale;
import java.util.Set;

/**
 * What a page on another site can make a browser send to the API, refused before any resource
 * runs (the event intake servlet and the JAX-RS resources alike):
 * <ul>
 * <li>a change (any method but GET, HEAD and OPTIONS) from another origin: {@code Origin} names
 * a host other than the one the request was sent to ({@code Host}, or the first
 * {@code X-Forwarded-Host} a proxy set), or is {@code null}, or {@code Sec-Fetch-Site} says
 * {@code cross-site}: 403. Browsers send {@code Origin} on every cross-origin POST, PUT and DELETE;
 * scripts and the command-line client send none and are not affected. Trusting
 * {@code X-Forwarded-Host} gives a page on another site nothing: it cannot set that header without
 * a CORS preflight either;</li>
 * <li>a change whose body is not JSON: a {@code Content-Type} other than {@code application/json}
 * (or {@code application/*+json}), or a body without one: 415. A form on another site can only send
 * {@code text/plain}, {@code application/x-www-form-urlencoded} or {@code multipart/form-data}
 * without the browser first asking (a CORS preflight, which this API never grants).</li>
 * </ul>
 * Together with the API refusing the console's session cookie (see {@link ConsoleAuthentication})
 * a cross-site request fails three ways; a browser's remembered Basic credentials are the case the
 * first two still catch on their own. {@link ConsoleAuthentication} makes the origin check too,
 * before it asks for credentials: a cross-site form gets its 403, not a Basic challenge (which a
 * browser turns into a login prompt on the attacker's page).
 */
@WebFilter(filterName = "ApiRequestGuard", urlPatterns = "/api/*")
public class ApiRequestGuard extends HttpFilter {

    private static final Set<String> SAFE_METHODS = Set.of("GET", "HEAD", "OPTIONS");

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (!SAFE_METHODS.contains(request.getMethod())) {
            if (isCrossOrigin(request)) {
                refuseCrossOrigin(request, response);
                return;
            }
            String type = request.getContentType();
            if (type != null ? !isJson(type) : hasBody(request)) {
                ApiRefusals.write(response, HttpServletResponse.SC_UNSUPPORTED_MEDIA_TYPE, "the request body must be JSON"
                        + " (Content-Type: application/json), not " + (type == null ? "a body without a Content-Type" : shorten(type)));
                return;
            }
        }
        chain.doFilter(request, response);
    }

    /** A change (not GET, HEAD or OPTIONS) sent from a page of another origin. */
    static boolean isCrossOriginChange(HttpServletRequest request) {
        return !SAFE_METHODS.contains(request.getMethod()) && isCrossOrigin(request);
    }

    static void refuseCrossOrigin(HttpServletRequest request, HttpServletResponse response) throws IOException {
        ApiRefusals.write(response, HttpServletResponse.SC_FORBIDDEN, "cross-origin request refused: Origin "
                + shorten(request.getHeader("Origin")) + " is not this server; call the API from a script or"
                + " a server, not from a page on another site");
    }

    static boolean isCrossOrigin(HttpServletRequest request) {
        if ("cross-site".equalsIgnoreCase(request.getHeader("Sec-Fetch-Site"))) {
            return true;
        }
        String origin = request.getHeader("Origin");
        if (origin == null) {
            return false;
        }
        String authority = authority(origin);
        if (authority == null) {
            return true; // "null" (a sandboxed frame, a redirect across sites) or garbage
        }
        String host = request.getHeader("Host");
        if (host == null) {
            host = request.getServerName() + ":" + request.getServerPort();
        }
        return !authority.equalsIgnoreCase(host) && !authority.equalsIgnoreCase(forwardedHost(request));
    }

    /** {@code host[:port]} of an origin, the port only when the origin names one; null when it is not http(s). */
    static String authority(String origin) {
        try {
            URI uri = new URI(origin.trim());
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
                return null;
            }
            return uri.getPort() < 0 ? uri.getHost() : uri.getHost() + ":" + uri.getPort();
        } catch (java.net.URISyntaxException e) {
            return null;
        }
    }

    private static String forwardedHost(HttpServletRequest request) {
        String forwarded = request.getHeader("X-Forwarded-Host");
        if (forwarded == null) {
            return null;
        }
        int comma = forwarded.indexOf(',');
        return (comma < 0 ? forwarded : forwarded.substring(0, comma)).trim();
    }

    static boolean isJson(String contentType) {
        String type = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        return type.equals("application/json") || (type.startsWith("application/") && type.endsWith("+json"));
    }

    private static boolean hasBody(HttpServletRequest request) {
        return request.getContentLengthLong() > 0 || request.getHeader("Transfer-Encoding") != null;
    }

    private static String shorten(String s) {
        return s == null ? "(none)" : s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }
}
