package io.cyclium.audit;

/**
 * Who asked for an action and from where: the authenticated user's name and the client address
 * the server saw (a proxy's, behind one). Both come from the request, never from its body.
 */
public record Operator(String user, String address) {

    public Operator {
        user = user == null || user.isBlank() ? "anonymous" : user;
    }
}
