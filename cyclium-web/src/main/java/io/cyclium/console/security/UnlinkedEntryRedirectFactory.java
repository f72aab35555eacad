package io.cyclium.console.security;

import jakarta.faces.context.ExceptionHandler;
import jakarta.faces.context.ExceptionHandlerFactory;

/** Installs {@link UnlinkedEntryRedirect} (faces-config.xml, factory). */
public class UnlinkedEntryRedirectFactory extends ExceptionHandlerFactory {

    public UnlinkedEntryRedirectFactory(ExceptionHandlerFactory wrapped) {
        super(wrapped);
    }

    @Override
    public ExceptionHandler getExceptionHandler() {
        return new UnlinkedEntryRedirect(getWrapped().getExceptionHandler());
    }
}
