package io.cyclium.problem;

/**
 * A failure the caller can fix or must know about, with the HTTP status the API maps it to and the
 * field it concerns (if any). Anything else is a bug: logged with an id, never echoed.
 */
@jakarta.ejb.ApplicationException(rollback = true, inherited = true)
public class Problem extends RuntimeException {

    private final int status;
    private final String field;

    public Problem(int status, String field, String message) {
        super(message);
        this.status = status;
        this.field = field;
    }

    public int status() {
        return status;
    }

    public String field() {
        return field;
    }

    /** 400: the request names something malformed. */
    public static Problem invalid(String field, String message) {
        return new Problem(400, field, message);
    }

    /** 404: no such thing. */
    public static Problem notFound(String what) {
        return new Problem(404, null, what);
    }

    /**
     * 503: this node cannot take the request now (the database refused the write, the node is
     * draining); nothing was stored, and the same request may be retried here or on another node.
     */
    public static Problem unavailable(String message) {
        return new Problem(503, null, message);
    }

    /** 409: the thing exists but is not in a state that allows this. */
    public static Problem conflict(String message) {
        return new Problem(409, null, message);
    }
}
