package io.cyclium.console.security;

import io.cyclium.node.NodeIdentity;
import jakarta.inject.Inject;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * web.xml's error page for the container's own 401 and 403 (a role the caller lacks, a resource
 * nobody may read): the API's JSON error body for a request under {@code /api/}, a short page
 * otherwise, instead of the server's HTML page naming the server. Reached only by the container's
 * error dispatch; asked for directly it is a page like any other (login first).
 */
@WebServlet(name = "RefusalPage", urlPatterns = RefusalPage.PATH)
public class RefusalPage extends HttpServlet {

    static final String PATH = "/refused";

    private static final String API = "/api";

    @Inject
    OperatorRequest operator;

    @Inject
    NodeIdentity node;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        int status = code instanceof Integer i ? i : HttpServletResponse.SC_FORBIDDEN;
        String uri = (String) request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
        if (ApiRefusals.isApiPath(request.getContextPath(), uri)) {
            if (status == HttpServletResponse.SC_FORBIDDEN) {
                auditRefusal(request, uri);
            }
            ApiRefusals.write(response, status, status == HttpServletResponse.SC_UNAUTHORIZED ? ApiRefusals.UNAUTHORIZED
                    : ApiRefusals.FORBIDDEN);
            return;
        }
        byte[] page = ("<!DOCTYPE html><html><head><title>Cyclium — not allowed</title></head><body><h2>"
                + (status == HttpServletResponse.SC_UNAUTHORIZED ? "Log in first" : "Not allowed")
                + "</h2><p>Your role may not open this. <a href=\"" + request.getContextPath()
                + "/index.xhtml\">Back to the overview</a></p></body></html>").getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.setContentType("text/html;charset=UTF-8");
        response.setContentLength(page.length);
        response.getOutputStream().write(page);
    }

    /**
     * The refused change in the audit trail, as the console records a viewer's forged action: the
     * container turned the caller away for its role before any resource ran, so no resource wrote
     * the row. The caller is authenticated here (a 403, not a 401), so the row names them.
     */
    private void auditRefusal(HttpServletRequest request, String uri) {
        String path = uri.substring(Math.min(uri.length(), request.getContextPath().length()));
        if (!path.startsWith(API)) {
            return;
        }
        RefusedApiAction.of(request.getMethod(), path.substring(API.length())).ifPresent(refused -> operator.refuse(refused.action(),
                RefusedApiAction.THIS_NODE.equals(refused.subjectId()) ? node.name() : refused.subjectId(),
                "needs the role " + ConsoleRoles.ADMIN));
    }
}
