// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {ITokenMessengerV2} from "./ICctpV2.sol";
import {ForwarderParams, PaymentForwarderV3} from "./PaymentForwarderV3.sol";

/// @notice Predicts, deploys, flushes and burns version 3 payment forwarders: one deposit address on every chain.
///
/// Deployed through the deterministic CREATE2 deployer (the same address on every EVM chain) with the same salt and
/// the same init code everywhere, so this factory has the same address on every chain; its implementation is its
/// first CREATE (nonce 1), so that too; and a deposit address, the CREATE2 address of a bare 45-byte EIP-1167 clone
/// of that implementation with salt keccak256(abi.encode(params)), is the same on every chain. The clone holds no
/// args: each call passes the params, which the forwarder checks against its own address (decision 0031).
///
/// The init code carries the routes: for each chain id, its CCTP domain, USDC, TokenMessengerV2 and the most a fast
/// burn may pay. On each chain the constructor picks the row of `block.chainid` and deploys the implementation
/// with it, so the forwarder's code there knows where USDC goes without anyone able to change it: another table
/// is another init code, hence another factory address and other deposit addresses. A chain not in the table gets
/// no burn route (its forwarders pay merchant and treasury there, as on Polygon).
contract ForwarderFactoryV3 {
    struct FlushOutcome {
        uint256 merchantSent;
        uint256 feeSent;
        uint256 merchantOwed;
        uint256 feeOwed;
    }

    /// @notice One chain of the table. `domain` POLYGON_DOMAIN marks the chain where every burn mints; on it USDC
    /// is flushed like any token, so its `usdc` and `tokenMessenger` are informative only.
    struct ChainRoute {
        uint64 chainId;
        uint32 domain;
        address usdc;
        address tokenMessenger;
        uint16 maxBurnFeeBps;
    }

    /// @notice One burn of `burnBatch`: PaymentForwarderV3.burn's arguments for the forwarder of `params`.
    struct BurnOrder {
        ForwarderParams params;
        uint256 amount;
        uint256 maxFee;
        uint32 minFinalityThreshold;
    }

    uint256 public constant VERSION = 3;
    /// @notice At most 256: `flushBatchDeploying` says which forwarders are new in one word, a bit per payment.
    uint256 public constant MAX_BATCH = 100;
    /// @notice The gas `flushBatchDeploying` gives each claimed-new forwarder's CREATE2: a bare clone needs ~41.1k
    /// (CREATE2's 32,000, 45 bytes of code at 200 each, the init code's few steps). A CREATE2 onto an address that
    /// already has code consumes every gas it was given (EIP-684), so this bound is what a wrong claim can cost.
    uint256 public constant CLONE_GAS = 50_000;
    uint16 public constant MAX_FEE_BPS = 10_000;
    /// @notice A fast burn's fee is a few basis points; a table allowing more is refused rather than trusted.
    uint16 public constant MAX_BURN_FEE_BPS = 100;
    uint32 public constant POLYGON_DOMAIN = 7;

    address public immutable implementation;
    /// @notice keccak256(abi.encode(routes)): what an operator compares with the published table.
    bytes32 public immutable routesHash;
    /// @notice This chain's row, as the implementation was deployed with (`chainId` 0: not in the table).
    ChainRoute private _route;

    event ForwarderDeployed(address indexed forwarder, bytes16 indexed paymentId);

    error FeeTooHigh(uint16 feeBps);
    error ZeroAddress();
    error BatchTooLarge(uint256 length, uint256 max);
    error BurnOutOfGas(uint256 index);
    /// @notice `flushBatchDeploying` could not deploy the forwarder at `index` (too little gas) and none is there.
    error DeployFailed(uint256 index);
    /// @notice `deployClone` answers this factory alone: it is the bounded-gas frame of `flushBatchDeploying`.
    error NotFactory();
    /// @notice The table is the same on every chain, so it is checked whole: an error anywhere in it stops the
    /// factory on every chain, never on some.
    error InvalidRoutes(uint256 index);

    constructor(ChainRoute[] memory routes) {
        _checkRoutes(routes);
        routesHash = keccak256(abi.encode(routes));
        for (uint256 i = 0; i < routes.length; ++i) {
            if (routes[i].chainId == block.chainid) _route = routes[i];
        }
        ChainRoute memory route = _route;
        bool burns = route.chainId != 0 && route.domain != POLYGON_DOMAIN;
        // The factory's first CREATE: the implementation's address follows from the factory's alone (nonce 1).
        implementation = address(
            new PaymentForwarderV3(
                IERC20(burns ? route.usdc : address(0)),
                ITokenMessengerV2(burns ? route.tokenMessenger : address(0)),
                burns ? route.maxBurnFeeBps : 0
            )
        );
    }

    function route() external view returns (ChainRoute memory) {
        return _route;
    }

    function predict(ForwarderParams calldata p) external view returns (address) {
        return Clones.predictDeterministicAddress(implementation, _salt(p));
    }

    /// @notice As version 2: for each params, deploy the forwarder if needed (probing its address's code) and
    /// flush `token` out of it. For callers that do not know which forwarders exist.
    function flushBatch(ForwarderParams[] calldata batch, IERC20 token)
        external
        returns (FlushOutcome[] memory outcomes)
    {
        if (batch.length > MAX_BATCH) revert BatchTooLarge(batch.length, MAX_BATCH);
        outcomes = new FlushOutcome[](batch.length);
        for (uint256 i = 0; i < batch.length; ++i) {
            FlushOutcome memory outcome = outcomes[i];
            (outcome.merchantSent, outcome.feeSent, outcome.merchantOwed, outcome.feeOwed) =
                PaymentForwarderV3(_deployed(batch[i])).flush(batch[i], token);
        }
    }

    /// @notice `flushBatch` for a caller that knows which forwarders are new (read off-chain with eth_getCode):
    /// bit i of `newForwarders` set deploys batch[i]'s forwarder, clear flushes one already there. No code probe,
    /// no `ForwarderDeployed` event (`Flushed` names the payment): ~4k less per new forwarder. A wrong claim
    /// never moves money elsewhere, since each forwarder checks its params against its own address:
    /// - "new" but already deployed (someone deployed it since the caller looked): the CREATE2 collides and burns
    ///   at most CLONE_GAS, in a frame of its own, and the forwarder there is flushed as if claimed deployed;
    /// - "deployed" but not: the flush call finds no code and the whole batch reverts, spending what it used so far
    ///   (an `eth_call` shows it before any gas is spent; code never disappears, so only a reorg can cause it).
    function flushBatchDeploying(ForwarderParams[] calldata batch, IERC20 token, uint256 newForwarders)
        external
        returns (FlushOutcome[] memory outcomes)
    {
        if (batch.length > MAX_BATCH) revert BatchTooLarge(batch.length, MAX_BATCH);
        outcomes = new FlushOutcome[](batch.length);
        for (uint256 i = 0; i < batch.length; ++i) {
            bytes32 salt = _salt(batch[i]);
            address forwarder;
            if ((newForwarders >> i) & 1 == 1) {
                forwarder = _deployBounded(salt);
                if (forwarder == address(0)) {
                    forwarder = Clones.predictDeterministicAddress(implementation, salt);
                    if (forwarder.code.length == 0) revert DeployFailed(i);
                }
            } else {
                forwarder = Clones.predictDeterministicAddress(implementation, salt);
            }
            FlushOutcome memory outcome = outcomes[i];
            (outcome.merchantSent, outcome.feeSent, outcome.merchantOwed, outcome.feeOwed) =
                PaymentForwarderV3(forwarder).flush(batch[i], token);
        }
    }

    /// @notice The CREATE2 of one clone, called by this factory alone with a bounded gas (`CLONE_GAS`): a CREATE2
    /// in the batch's own frame that collides would consume the gas of the whole batch.
    function deployClone(bytes32 salt) external returns (address) {
        if (msg.sender != address(this)) revert NotFactory();
        return Clones.cloneDeterministic(implementation, salt);
    }

    /// @dev `deployClone(salt)` in a frame of CLONE_GAS; zero when it failed (the address taken, or too little gas).
    /// A low-level call: the high-level `try` spent ~0.3k per forwarder on encoding and decoding one word.
    function _deployBounded(bytes32 salt) private returns (address deployed) {
        bytes4 selector = this.deployClone.selector;
        assembly ("memory-safe") {
            let input := mload(0x40)
            mstore(input, selector)
            mstore(add(input, 4), salt)
            // Success returns the one word of `deployClone`, a non-zero address; failure leaves `deployed` zero.
            if and(call(CLONE_GAS, address(), 0, input, 36, 0, 32), eq(returndatasize(), 32)) { deployed := mload(0) }
        }
    }

    /// @notice Deploys the forwarder if needed and burns `amount` of this chain's USDC from it to Polygon (see
    /// PaymentForwarderV3.burn): the source chain's whole part of a cross-chain settlement, in one transaction.
    function deployAndBurn(ForwarderParams calldata p, uint256 amount, uint256 maxFee, uint32 minFinalityThreshold)
        external
        returns (address forwarder)
    {
        forwarder = _deployed(p);
        PaymentForwarderV3(forwarder).burn(p, amount, maxFee, minFinalityThreshold);
    }

    /// @notice `deployAndBurn` for many payments in one transaction (on Ethereum the transaction's own cost is a
    /// large part of a burn's). A burn that fails (its address blacklisted, the token paused, the fee above the
    /// route's cap) does not revert the others: it reports false and its money stays in its forwarder, so an
    /// `eth_call` tells which would burn before any gas is spent.
    function burnBatch(BurnOrder[] calldata orders) external returns (bool[] memory burnt) {
        if (orders.length > MAX_BATCH) revert BatchTooLarge(orders.length, MAX_BATCH);
        burnt = new bool[](orders.length);
        for (uint256 i = 0; i < orders.length; ++i) {
            BurnOrder calldata order = orders[i];
            PaymentForwarderV3 forwarder = PaymentForwarderV3(_deployed(order.params));
            uint256 gasBefore = gasleft();
            try forwarder.burn(order.params, order.amount, order.maxFee, order.minFinalityThreshold) {
                burnt[i] = true;
            } catch (bytes memory reason) {
                // Left in the forwarder, whole: the burn is all or nothing. But a burn starved of gas is not a
                // refusal: reverting then makes gas estimation, and a sender short of gas, fail loudly instead of
                // silently skipping burns that would have gone through. A call that ran out of gas leaves no
                // revert data, which every refusal of USDC's and CCTP's carries, and its caller only 1/64 of the
                // gas when it ran out at the top.
                if (reason.length == 0 || gasleft() <= gasBefore / 64) revert BurnOutOfGas(i);
            }
        }
    }

    function _deployed(ForwarderParams calldata p) private returns (address forwarder) {
        bytes32 salt = _salt(p);
        forwarder = Clones.predictDeterministicAddress(implementation, salt);
        if (forwarder.code.length == 0) {
            address deployed = Clones.cloneDeterministic(implementation, salt);
            assert(deployed == forwarder);
            emit ForwarderDeployed(forwarder, p.paymentId);
        }
    }

    /// @dev The clone's CREATE2 salt, to which its address commits: params the forwarder could not pay (a fee above
    /// 100 %, nobody to pay) get no forwarder.
    function _salt(ForwarderParams calldata p) private pure returns (bytes32) {
        if (p.feeBps > MAX_FEE_BPS) revert FeeTooHigh(p.feeBps);
        if (p.merchant == address(0) || p.treasury == address(0)) revert ZeroAddress();
        return keccak256(abi.encode(p));
    }

    /// @dev Exactly one Polygon row; no chain twice; every burning row with a token, a messenger and a bounded fee.
    function _checkRoutes(ChainRoute[] memory routes) private pure {
        uint256 homes = 0;
        for (uint256 i = 0; i < routes.length; ++i) {
            ChainRoute memory r = routes[i];
            if (r.chainId == 0) revert InvalidRoutes(i);
            for (uint256 j = 0; j < i; ++j) {
                if (routes[j].chainId == r.chainId) revert InvalidRoutes(i);
            }
            if (r.domain == POLYGON_DOMAIN) {
                ++homes;
            } else if (r.usdc == address(0) || r.tokenMessenger == address(0) || r.maxBurnFeeBps > MAX_BURN_FEE_BPS) {
                revert InvalidRoutes(i);
            }
        }
        if (homes != 1) revert InvalidRoutes(routes.length);
    }
}
