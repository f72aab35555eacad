package io.cyclium.api;

import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

/** The next-page link of the keyset-paged list endpoints (whole numbers: {@link PageLimit}). */
final class QueryParams {

    private QueryParams() {
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
