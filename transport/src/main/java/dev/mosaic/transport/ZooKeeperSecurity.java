package dev.mosaic.transport;

import com.typesafe.config.Config;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.ClientInfo;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may write the pipeline's znodes (searcher registry, partition manifest, index manifest): only
 * clients authenticated with the pipeline's digest credential. Apply it to every Curator client the
 * pipeline builds ({@link #applyTo}); every znode such a client creates then carries the ACL {@code
 * digest:<user>:<hash>} with all permissions plus {@code world:anyone} read — the registry and
 * manifest are not secret (addresses, versions, checksums), but only the pipeline may change them.
 *
 * <pre>{@code
 * ZooKeeperSecurity zk = ZooKeeperSecurity.digest("mosaic", secret);
 * CuratorFramework client = zk.applyTo(CuratorFrameworkFactory.builder()
 *     .connectString(connect).retryPolicy(retry)).build();
 * }</pre>
 *
 * <p>Thread safety: immutable. NOTE: ACLs are set when a znode is created; znodes made before the
 * credential was used (or by a client without it) stay as they were — create the root with the
 * credential, or fix it once with {@code setAcl}.
 */
public final class ZooKeeperSecurity {
  private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperSecurity.class);

  private final String user;
  private final byte[] auth;
  private final List<ACL> acls;

  private ZooKeeperSecurity(String user, byte[] auth, List<ACL> acls) {
    this.user = user;
    this.auth = auth;
    this.acls = acls;
  }

  /**
   * The digest credential {@code user:password}: its holders get all permissions, everybody else
   * read.
   *
   * @throws IllegalArgumentException when the user is empty or contains ':' or the password is
   *     empty
   */
  public static ZooKeeperSecurity digest(String user, String password) {
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(password, "password");
    if (user.isEmpty() || user.contains(":")) {
      throw new IllegalArgumentException("ZooKeeper digest user must be non-empty, without ':'");
    }
    if (password.isEmpty()) {
      throw new IllegalArgumentException("ZooKeeper digest password must not be empty");
    }
    String credential = user + ":" + password;
    try {
      Id id = new Id("digest", DigestAuthenticationProvider.generateDigest(credential));
      return new ZooKeeperSecurity(
          user,
          credential.getBytes(StandardCharsets.UTF_8),
          // NOTE: ZooKeeper calls acls.contains(null), which an immutable List.of(...) rejects
          Collections.unmodifiableList(
              new ArrayList<>(
                  List.of(
                      new ACL(ZooDefs.Perms.ALL, id),
                      new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)))));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("no SHA-1 for ZooKeeper digests", e);
    }
  }

  /**
   * Reads {@code mosaic.transport.zookeeper}: {@code digest-user} and {@code digest-password}; with
   * an empty password, {@link #open()} (logged as a warning).
   */
  public static ZooKeeperSecurity fromConfig(Config config) {
    Config c = config.getConfig("mosaic.transport.zookeeper");
    String password = c.getString("digest-password");
    if (password.isEmpty()) {
      LOG.warn(
          "mosaic.transport.zookeeper.digest-password is empty: znodes are created world-writable;"
              + " anyone who reaches ZooKeeper can change the searcher registry and the manifest");
      return open();
    }
    return digest(c.getString("digest-user"), password);
  }

  /** No credential and open ACLs: anyone who reaches ZooKeeper may change the znodes. */
  public static ZooKeeperSecurity open() {
    return new ZooKeeperSecurity(
        null, null, Collections.unmodifiableList(new ArrayList<>(ZooDefs.Ids.OPEN_ACL_UNSAFE)));
  }

  /** Whether znodes are protected by a credential. */
  public boolean protectsWrites() {
    return auth != null;
  }

  /** The ACL of every znode created by a client this was applied to. */
  public List<ACL> acls() {
    return acls;
  }

  /** The {@link ACLProvider} giving {@link #acls()} for every path. */
  public ACLProvider aclProvider() {
    return new ACLProvider() {
      @Override
      public List<ACL> getDefaultAcl() {
        return acls;
      }

      @Override
      public List<ACL> getAclForPath(String path) {
        return acls;
      }
    };
  }

  /** Adds the credential (digest authentication, re-sent on every session) and the ACL provider. */
  public CuratorFrameworkFactory.Builder applyTo(CuratorFrameworkFactory.Builder builder) {
    if (auth != null) {
      builder.authorization("digest", auth.clone());
    }
    return builder.aclProvider(aclProvider());
  }

  /**
   * Logs a warning, in the background, if {@code client} is not authenticated with a digest
   * credential (then what it creates is unprotected unless its ACL provider says otherwise).
   */
  public static void warnIfUnauthenticated(CuratorFramework client, String nodeId) {
    Thread.ofVirtual()
        .name("zk-auth-check-" + nodeId)
        .start(
            () -> {
              try {
                if (!client.blockUntilConnected(30, java.util.concurrent.TimeUnit.SECONDS)) {
                  return;
                }
                List<ClientInfo> who = client.getZookeeperClient().getZooKeeper().whoAmI();
                if (who.stream().noneMatch(i -> "digest".equals(i.getAuthScheme()))) {
                  LOG.warn(
                      "{}: the ZooKeeper client has no digest credential (authenticated as {}); znodes it"
                          + " creates are protected only by its ACL provider — build it with"
                          + " ZooKeeperSecurity.applyTo",
                      nodeId,
                      who.stream()
                          .map(i -> i.getAuthScheme() + ":" + i.getUser().strip())
                          .toList());
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (Exception e) {
                LOG.debug("{}: could not check the ZooKeeper credential: {}", nodeId, e.toString());
              }
            });
  }

  @Override
  public String toString() {
    return user == null ? "open ZooKeeper ACLs" : "ZooKeeper digest ACLs for user " + user;
  }
}
