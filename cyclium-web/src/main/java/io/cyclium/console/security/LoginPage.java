package io.cyclium.console.security;

import jakarta.enterprise.context.RequestScoped;
import jakarta.faces.application.FacesMessage;
import jakarta.faces.context.ExternalContext;
import jakarta.faces.context.FacesContext;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import jakarta.security.enterprise.AuthenticationStatus;
import jakarta.security.enterprise.SecurityContext;
import jakarta.security.enterprise.authentication.mechanism.http.AuthenticationParameters;
import jakarta.security.enterprise.credential.UsernamePasswordCredential;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** Backs login.xhtml and the logout link: hands the form's credential to {@link ConsoleAuthentication}. */
@Named("login")
@RequestScoped
public class LoginPage {

    @Inject
    SecurityContext security;

    private String username;
    private String password;
    private String next;

    /** The page asked for before the login (a path in this application); the overview when unset or unsafe. */
    public String getNext() {
        return next;
    }

    public void setNext(String next) {
        this.next = next;
    }

    public String getUsername() {
        return username;
    }

    public void setUsername(String username) {
        this.username = username;
    }

    public String getPassword() {
        return password;
    }

    public void setPassword(String password) {
        this.password = password;
    }

    public void login() throws IOException {
        FacesContext faces = FacesContext.getCurrentInstance();
        ExternalContext external = faces.getExternalContext();
        AuthenticationStatus status = security.authenticate((HttpServletRequest) external.getRequest(),
                (HttpServletResponse) external.getResponse(),
                AuthenticationParameters.withParams().newAuthentication(true)
                        .credential(new UsernamePasswordCredential(username == null ? "" : username,
                                password == null ? "" : password)));
        if (status == AuthenticationStatus.SUCCESS) {
            external.redirect(external.getRequestContextPath() + LoginTarget.orLanding(next));
            faces.responseComplete();
        } else if (status == AuthenticationStatus.SEND_CONTINUE) {
            faces.responseComplete();
        } else if (external.getRequestMap().get(ConsoleAuthentication.THROTTLED) != null) {
            faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_ERROR, "Too many failed logins for this user from"
                    + " this address: try again in " + external.getRequestMap().get(ConsoleAuthentication.THROTTLED) + " s.", null));
        } else {
            faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_ERROR, "Wrong user or password.", null));
        }
    }

    public void logout() throws IOException, ServletException {
        ExternalContext external = FacesContext.getCurrentInstance().getExternalContext();
        ((HttpServletRequest) external.getRequest()).logout();
        external.invalidateSession();
        external.redirect(external.getRequestContextPath() + ConsoleAuthentication.LOGIN_PAGE);
    }
}
