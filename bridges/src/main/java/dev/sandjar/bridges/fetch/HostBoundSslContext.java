package dev.sandjar.bridges.fetch;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.List;
import java.util.function.BiFunction;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * An {@link SSLContext} bound to one host name, for an HTTP client that connects to an IP literal
 * but must authenticate the name the guest asked for.
 *
 * <p>{@code java.net.http} creates each engine as {@code createSSLEngine(uriHost, port)}, and with
 * a pinned request the URI host is the IP literal. This context creates the engine for the bound
 * name instead, and the engine forces two parameters whenever the client sets its parameters:
 *
 * <ul>
 *   <li>server names = the bound name, so SNI carries it. JDK 17 leaves the client's server names
 *       alone for literal URI hosts, but newer JDKs clear them, and a client-level setting would
 *       not survive that;
 *   <li>endpoint identification = {@code HTTPS}, so the JDK trust manager checks the certificate
 *       against the name even if {@code jdk.internal.httpclient.disableHostnameVerification} is
 *       set.
 * </ul>
 *
 * <p>Why the engine's peer host must be the name too, not only SNI: the JDK trust manager checks
 * the SNI name first and, if that fails, falls back to the peer host. With the IP literal as peer
 * host, a certificate valid for that IP but not for the name would pass. And the client session
 * cache is keyed by peer host and port, so with the literal a TLS session made for one name would
 * be resumed, with no certificate check, for another name on the same address. Binding the peer
 * host closes both; the tests show each.
 *
 * <p>For a literal host (an {@code https://1.2.3.4/} URL) the bound name is the literal itself,
 * which the trust manager checks against the certificate's IP addresses, and no SNI is sent.
 */
final class HostBoundSslContext extends SSLContext {

    HostBoundSslContext(SSLContext base, String host, boolean literal) {
        super(new Spi(base, host, literal), base.getProvider(), base.getProtocol());
    }

    private static final class Spi extends SSLContextSpi {
        private final SSLContext base;
        private final String host;
        private final boolean literal;

        Spi(SSLContext base, String host, boolean literal) {
            this.base = base;
            this.host = host;
            this.literal = literal;
        }

        @Override
        protected SSLEngine engineCreateSSLEngine(String uriHost, int port) {
            return new HostBoundEngine(base.createSSLEngine(host, port), host, literal);
        }

        @Override
        protected SSLEngine engineCreateSSLEngine() {
            throw new UnsupportedOperationException("an engine needs the peer's port");
        }

        @Override
        protected void engineInit(KeyManager[] km, TrustManager[] tm, SecureRandom sr) {
            throw new UnsupportedOperationException("initialise the base context instead");
        }

        @Override
        protected SSLSocketFactory engineGetSocketFactory() {
            throw new UnsupportedOperationException("only engines are host-bound");
        }

        @Override
        protected SSLServerSocketFactory engineGetServerSocketFactory() {
            throw new UnsupportedOperationException("a client context");
        }

        @Override
        protected SSLSessionContext engineGetServerSessionContext() {
            return base.getServerSessionContext();
        }

        @Override
        protected SSLSessionContext engineGetClientSessionContext() {
            return base.getClientSessionContext();
        }

        @Override
        protected SSLParameters engineGetDefaultSSLParameters() {
            return base.getDefaultSSLParameters();
        }

        @Override
        protected SSLParameters engineGetSupportedSSLParameters() {
            return base.getSupportedSSLParameters();
        }
    }

    /** Delegates everything; pins server names and endpoint identification on every update. */
    private static final class HostBoundEngine extends SSLEngine {
        private final SSLEngine delegate;
        private final String host;
        private final boolean literal;

        HostBoundEngine(SSLEngine delegate, String host, boolean literal) {
            super(host, delegate.getPeerPort());
            this.delegate = delegate;
            this.host = host;
            this.literal = literal;
            delegate.setSSLParameters(bind(delegate.getSSLParameters()));
        }

        /** Mutates {@code params}: the HTTP client hands each engine a fresh copy. */
        @Override
        public void setSSLParameters(SSLParameters params) {
            delegate.setSSLParameters(bind(params));
        }

        private SSLParameters bind(SSLParameters params) {
            params.setServerNames(literal ? List.of() : List.of(new SNIHostName(host)));
            params.setEndpointIdentificationAlgorithm("HTTPS");
            return params;
        }

        @Override
        public SSLParameters getSSLParameters() {
            return delegate.getSSLParameters();
        }

        @Override
        public String getPeerHost() {
            return delegate.getPeerHost();
        }

        @Override
        public int getPeerPort() {
            return delegate.getPeerPort();
        }

        @Override
        public SSLEngineResult wrap(ByteBuffer[] srcs, int offset, int length, ByteBuffer dst)
                throws SSLException {
            return delegate.wrap(srcs, offset, length, dst);
        }

        @Override
        public SSLEngineResult unwrap(ByteBuffer src, ByteBuffer[] dsts, int offset, int length)
                throws SSLException {
            return delegate.unwrap(src, dsts, offset, length);
        }

        @Override
        public Runnable getDelegatedTask() {
            return delegate.getDelegatedTask();
        }

        @Override
        public void closeInbound() throws SSLException {
            delegate.closeInbound();
        }

        @Override
        public boolean isInboundDone() {
            return delegate.isInboundDone();
        }

        @Override
        public void closeOutbound() {
            delegate.closeOutbound();
        }

        @Override
        public boolean isOutboundDone() {
            return delegate.isOutboundDone();
        }

        @Override
        public String[] getSupportedCipherSuites() {
            return delegate.getSupportedCipherSuites();
        }

        @Override
        public String[] getEnabledCipherSuites() {
            return delegate.getEnabledCipherSuites();
        }

        @Override
        public void setEnabledCipherSuites(String[] suites) {
            delegate.setEnabledCipherSuites(suites);
        }

        @Override
        public String[] getSupportedProtocols() {
            return delegate.getSupportedProtocols();
        }

        @Override
        public String[] getEnabledProtocols() {
            return delegate.getEnabledProtocols();
        }

        @Override
        public void setEnabledProtocols(String[] protocols) {
            delegate.setEnabledProtocols(protocols);
        }

        @Override
        public SSLSession getSession() {
            return delegate.getSession();
        }

        @Override
        public SSLSession getHandshakeSession() {
            return delegate.getHandshakeSession();
        }

        @Override
        public void beginHandshake() throws SSLException {
            delegate.beginHandshake();
        }

        @Override
        public SSLEngineResult.HandshakeStatus getHandshakeStatus() {
            return delegate.getHandshakeStatus();
        }

        @Override
        public void setUseClientMode(boolean mode) {
            delegate.setUseClientMode(mode);
        }

        @Override
        public boolean getUseClientMode() {
            return delegate.getUseClientMode();
        }

        @Override
        public void setNeedClientAuth(boolean need) {
            delegate.setNeedClientAuth(need);
        }

        @Override
        public boolean getNeedClientAuth() {
            return delegate.getNeedClientAuth();
        }

        @Override
        public void setWantClientAuth(boolean want) {
            delegate.setWantClientAuth(want);
        }

        @Override
        public boolean getWantClientAuth() {
            return delegate.getWantClientAuth();
        }

        @Override
        public void setEnableSessionCreation(boolean flag) {
            delegate.setEnableSessionCreation(flag);
        }

        @Override
        public boolean getEnableSessionCreation() {
            return delegate.getEnableSessionCreation();
        }

        @Override
        public String getApplicationProtocol() {
            return delegate.getApplicationProtocol();
        }

        @Override
        public String getHandshakeApplicationProtocol() {
            return delegate.getHandshakeApplicationProtocol();
        }

        @Override
        public void setHandshakeApplicationProtocolSelector(
                BiFunction<SSLEngine, List<String>, String> selector) {
            delegate.setHandshakeApplicationProtocolSelector(selector);
        }

        @Override
        public BiFunction<SSLEngine, List<String>, String>
                getHandshakeApplicationProtocolSelector() {
            return delegate.getHandshakeApplicationProtocolSelector();
        }
    }
}
