package io.cyclium.console.security;

import io.cyclium.store.Jsons;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * A refusal written before any resource runs (the authentication mechanism, the request guard,
 * the container's 401/403 error page), in the API's error body: {@code {"status": 403, "error":
 * "..."}}, the shape of {@code io.cyclium.api.ApiError} without a field or an error id.
 */
final class ApiRefusals {

    static final String UNAUTHORIZED = "no credentials: send a user and password with HTTP Basic"
            + " (the console's session is not accepted by the API)";
    static final String WRONG_CREDENTIALS = "wrong user or password";
    static final String FORBIDDEN = "your role may not do this: changes need the role cyclium-admin";

    private ApiRefusals() {
    }

    /**
     * Under {@code /api/}: by the path the container mapped (decoded, so {@code /%61pi/} and
     * {@code /api;x/} count too) or by the raw URI.
     */
    static boolean isApi(HttpServletRequest request) {
        String mapped = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        return mapped.startsWith("/api/") || isApiPath(request.getContextPath(), request.getRequestURI());
    }

    /** {@code uri} (as sent, possibly percent-encoded) is under {@code contextPath/api/}. */
    static boolean isApiPath(String contextPath, String uri) {
        if (uri == null) {
            return false;
        }
        String decoded;
        try {
            decoded = java.net.URLDecoder.decode(uri.replace("+", "%2B"), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IllegalArgumentException malformed) {
            decoded = uri;
        }
        int semicolon = decoded.indexOf(';');
        String path = semicolon < 0 ? decoded : decoded.replaceAll(";[^/]*", "");
        return path.startsWith(contextPath + "/api/");
    }

    /** Writes {@code status} with the JSON body and commits the response: nothing after this may change it. */
    static void write(HttpServletResponse response, int status, String error) throws IOException {
        byte[] body = Jsons.object().add("status", status).add("error", error).build().toString()
                .getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.setContentType("application/json");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
        response.flushBuffer();
    }
}
