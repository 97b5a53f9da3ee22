// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @notice A hostile ERC-20 for tests of what a forwarder or the factory does with a token that is not USDC: it may
/// keep a fee on every transfer (the recipient gets less than was sent), and it may call back any contract with
/// any data in the middle of a transfer (re-entrancy), recording whether that call went through.
contract TestHookToken is ERC20 {
    uint16 public feeBps;
    address public hookTarget;
    bytes public hookData;
    uint256 public hookCalls;
    uint256 public hookFailures;
    bool private _inHook;

    constructor() ERC20("Hook token (test)", "HOOK") {}

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function setFeeBps(uint16 feeBps_) external {
        feeBps = feeBps_;
    }

    /// @notice From now on, each transfer between two accounts first calls `target` with `data` (once at a time).
    function setHook(address target, bytes calldata data) external {
        hookTarget = target;
        hookData = data;
    }

    function _update(address from, address to, uint256 value) internal override {
        if (from != address(0) && to != address(0)) {
            if (hookTarget != address(0) && !_inHook) {
                _inHook = true;
                (bool ok,) = hookTarget.call(hookData);
                _inHook = false;
                ++hookCalls;
                if (!ok) ++hookFailures;
            }
            uint256 fee = value * feeBps / 10_000;
            if (fee > 0) {
                super._update(from, address(0), fee);
                value -= fee;
            }
        }
        super._update(from, to, value);
    }
}
