package io.cyclium.api;

/** The JSON body of every API error: the HTTP status, what was wrong, and the field when one is to blame. */
public record ApiError(int status, String error, String field, String errorId) {
}
