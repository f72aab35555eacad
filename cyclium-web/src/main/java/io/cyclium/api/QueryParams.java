package io.cyclium.api;

import io.cyclium.problem.Problem;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

/** Query parameters shared by the list endpoints: whole numbers named in their 400s, and the next-page link. */
final class QueryParams {

    private QueryParams() {
    }

    /** {@code raw} as a whole number; blank: {@code fallback}; anything else is a 400 naming {@code field}. */
    static int wholeNumber(String field, String raw, int fallback) {
        if (raw == null || raw.isBlank()) {
            return fallback;
        }
        try {
            return Integer.parseInt(raw.trim());
        } catch (NumberFormatException e) {
            throw Problem.invalid(field, field + " \"" + (raw.length() > 20 ? raw.substring(0, 20) + "…" : raw)
                    + "\" is not a whole number");
        }
    }

    /**
     * A 200 with {@code body}; when another page follows, a {@code Link: <…&cursor=…>; rel="next"}
     * header (the same query with the next cursor) and the bare cursor in {@code X-Next-Cursor}.
     * The body stays a plain JSON array, as it was before lists were paged.
     */
    static Response page(Object body, String nextCursor, UriInfo uri) {
        Response.ResponseBuilder r = Response.ok(body);
        if (nextCursor != null) {
            r.link(uri.getRequestUriBuilder().replaceQueryParam("cursor", nextCursor).build(), "next");
            r.header("X-Next-Cursor", nextCursor);
        }
        return r.build();
    }
}
